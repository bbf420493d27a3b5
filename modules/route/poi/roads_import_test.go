package poi_test

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/osmfixture"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/storage/storagetest"
)

// roadsExtract holds a primary road of four nodes, a track of three, and
// a residential street cut by the extract (its middle node missing), its
// two stretches of two nodes each kept, neither in place of the other.
func roadsExtract(t *testing.T, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	var w osmfixture.Writer
	var err error
	if format == "pbf" {
		w, err = osmfixture.NewPBF(&b)
	} else {
		w, err = osmfixture.NewXML(&b)
	}
	require.NoError(t, err)
	node := func(id int64, north, east float64) osmfixture.Node {
		p := offset(end, north, east)
		return osmfixture.Node{ID: id, Lat: p.Lat, Lon: p.Lon}
	}
	for _, n := range []osmfixture.Node{node(1, 0, 0), node(2, 0, 0.1), node(3, 0, 0.2), node(4, 0, 0.3),
		node(5, 1, 0), node(6, 1, 0.1), node(7, 1, 0.2),
		node(8, 2, 0), node(9, 2, 0.1), node(11, 2, 0.3), node(12, 2, 0.4)} {
		require.NoError(t, w.Node(n))
	}
	for _, x := range []osmfixture.Way{
		{ID: 100, Refs: []int64{1, 2, 3, 4}, Tags: []osmfixture.Tag{{"highway", "primary"}}},
		{ID: 101, Refs: []int64{5, 6, 7}, Tags: []osmfixture.Tag{{"highway", "track"}, {"surface", "gravel"}}},
		{ID: 102, Refs: []int64{8, 9, 10, 11, 12}, Tags: []osmfixture.Tag{{"highway", "residential"}}},
	} {
		require.NoError(t, w.Way(x))
	}
	require.NoError(t, w.Close())
	return b.Bytes()
}

// TestImportRoadsOnTheirNodes: the roads waiting for their nodes are filed
// on them, a road cut by the extract in its stretches, and a road past
// MaxWayNodes is counted and not filed.
func TestImportRoadsOnTheirNodes(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		for _, format := range []string{"xml", "pbf"} {
			for _, tc := range []struct {
				name          string
				maxWayNodes   int
				wantWays      []int64
				wantOverLimit int
			}{
				{name: "all", maxWayNodes: 0, wantWays: []int64{100, 101, 102, 102}},
				{name: "the last past the limit", maxWayNodes: 8, wantWays: []int64{100, 101}, wantOverLimit: 1},
				{name: "the second past the limit", maxWayNodes: 6, wantWays: []int64{100}, wantOverLimit: 2},
			} {
				t.Run(format+"/"+tc.name, func(t *testing.T) {
					ctx := context.Background()
					_, err := db.NewDelete().Table("osm_ways").Where("1 = 1").Exec(ctx)
					require.NoError(t, err)
					s := poi.NewStore(db)
					stats, err := poi.Importer{MaxWayNodes: tc.maxWayNodes}.Import(ctx, s, bytes.NewReader(roadsExtract(t, format)), poi.Format(format))
					require.NoError(t, err)
					require.Equal(t, tc.wantOverLimit, stats.WaysOverLimit)
					require.Equal(t, int64(3), stats.WaysScanned, "each way counted once")
					require.Equal(t, len(slices.Compact(slices.Clone(tc.wantWays))), stats.Roads, "a road cut in two is one road")
					line := []geo.Point{offset(end, 0, 0), offset(end, 2, 0), offset(end, 2, 0.4)}
					chunks, err := s.WaysNear(ctx, line, 3000, poi.KindRoad)
					require.NoError(t, err)
					var ways []int64
					points := map[int64]int{}
					for _, c := range chunks {
						ways = append(ways, c.WayID)
						points[c.WayID] += len(c.Points)
					}
					require.ElementsMatch(t, tc.wantWays, ways)
					if len(tc.wantWays) == 4 {
						require.Equal(t, map[int64]int{100: 4, 101: 3, 102: 4}, points)
						for _, c := range chunks {
							if c.WayID == 101 {
								require.Equal(t, "gravel", c.Tags["surface"])
							}
						}
					}
				})
			}
		}
	})
}
