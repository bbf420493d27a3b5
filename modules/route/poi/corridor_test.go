package poi_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/route/corridor"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/osmfixture"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/storage/storagetest"
)

// along is a 10 km line east of end.
func along() []geo.Point {
	var out []geo.Point
	for i := 0; i <= 10; i++ {
		out = append(out, offset(end, 0, float64(i)))
	}
	return out
}

// extract is a small area around along: a café beside the line, a water
// point 300 m off it, a primary road on it, a ferry route crossing it,
// a ford on it and, with moved, the water point 1.5 km further.
func extract(t *testing.T, withCafe bool, waterEast float64, format string) []byte {
	t.Helper()
	var e osmfixture.Extract
	if withCafe {
		e.Place(offset(end, 0.05, 2), osmfixture.Tag{"amenity", "cafe"}, osmfixture.Tag{"name", "Café"})
	}
	e.Place(offset(end, 0.3, waterEast), osmfixture.Tag{"amenity", "drinking_water"})
	e.Place(offset(end, 0, 7), osmfixture.Tag{"ford", "yes"})
	e.Line([]geo.Point{offset(end, 0, 1), offset(end, 0, 2), offset(end, 0, 3)},
		osmfixture.Tag{"highway", "primary"}, osmfixture.Tag{"maxspeed", "80"}, osmfixture.Tag{"ref", "N7"})
	e.Line([]geo.Point{offset(end, -2, 5), offset(end, 2, 5)}, osmfixture.Tag{"route", "ferry"}, osmfixture.Tag{"name", "Bac"})
	var b bytes.Buffer
	var w osmfixture.Writer
	var err error
	if format == "pbf" {
		w, err = osmfixture.NewPBF(&b)
	} else {
		w, err = osmfixture.NewXML(&b)
	}
	require.NoError(t, err)
	require.NoError(t, e.Write(w))
	return b.Bytes()
}

func TestImportKeepsWaysAndTheAreaItCovers(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		for _, format := range []string{"xml", "pbf"} {
			t.Run(format, func(t *testing.T) {
				ctx := context.Background()
				s := poi.NewStore(db)
				_, err := db.NewDelete().Table("pois").Where("1 = 1").Exec(ctx)
				require.NoError(t, err)
				manual := poi.POI{ID: "manual:1", Source: poi.SourceManual, Name: "Chez moi", Category: "cafe", Lat: end.Lat, Lon: offset(end, 0, 4).Lon}
				require.NoError(t, s.Upsert(ctx, []poi.POI{manual}))

				stats, err := poi.Importer{Name: "first"}.Import(ctx, s, bytes.NewReader(extract(t, true, 6, format)), poi.Format(format))
				require.NoError(t, err)
				require.Equal(t, 1, stats.Roads)
				require.Equal(t, 1, stats.Ferries)
				require.Positive(t, stats.CoverageTiles)
				require.Equal(t, map[string]int{"cafe": 1, "drinking_water": 1, "ford": 1}, stats.ByType)

				line := corridor.NewLine(along(), 2000)
				found, err := s.Along(ctx, line, 2000, []string{"cafe", "drinking_water", "ford"})
				require.NoError(t, err)
				require.Len(t, found, 4, "the café, the manual café, the ford and the water point")
				require.Equal(t, "Café", found[0].Name, "in order along the line")
				require.InDelta(t, 2000, found[0].Along, 30)
				require.InDelta(t, 50, found[0].Off, 5)

				roads, err := s.WaysNear(ctx, along(), 20, poi.KindRoad)
				require.NoError(t, err)
				require.Equal(t, []int64{roads[0].WayID}, wayIDs(roads), "one road, in chunks")
				require.Equal(t, poi.Tags{"highway": "primary", "maxspeed": "80"}, roads[0].Tags, "only the tags the rules read")
				last := roads[len(roads)-1].Points
				require.InDelta(t, offset(end, 0, 1).Lon, roads[0].Points[0].Lon, 1e-6)
				require.InDelta(t, offset(end, 0, 3).Lon, last[len(last)-1].Lon, 1e-6)
				ferries, err := s.WaysNear(ctx, along(), 100, poi.KindFerry)
				require.NoError(t, err)
				require.Len(t, wayIDs(ferries), 1)

				cov, err := s.Covers(ctx, along()[1:8]) // where the extract has data
				require.NoError(t, err)
				require.Equal(t, poi.Coverage{Imported: true, Covered: true}, cov)
				cov, err = s.Covers(ctx, []geo.Point{{Lat: 48.85, Lon: 2.35}, {Lat: 48.9, Lon: 2.4}})
				require.NoError(t, err)
				require.Equal(t, poi.Coverage{Imported: true, Covered: false}, cov, "Paris is no part of this extract")

				// The area imported again: the café is gone from the map, the
				// water point moved; nothing is listed twice, the place
				// entered by hand stays.
				_, err = poi.Importer{Name: "second"}.Import(ctx, s, bytes.NewReader(extract(t, false, 7.5, format)), poi.Format(format))
				require.NoError(t, err)
				found, err = s.Along(ctx, line, 2000, []string{"cafe", "drinking_water", "ford"})
				require.NoError(t, err)
				var names []string
				for _, f := range found {
					names = append(names, f.Category+":"+f.Name)
				}
				require.ElementsMatch(t, []string{"cafe:Chez moi", "drinking_water:", "ford:"}, names)
				require.InDelta(t, 7500, found[len(found)-1].Along, 50, "the water point where the new extract puts it")
				roads, err = s.WaysNear(ctx, along(), 20, poi.KindRoad)
				require.NoError(t, err)
				require.Len(t, wayIDs(roads), 1, "the road once")
			})
		}
	})
}

// wayIDs are the distinct ways of chunks.
func wayIDs(chunks []poi.WayChunk) []int64 {
	var out []int64
	for _, c := range chunks {
		if !slices.Contains(out, c.WayID) {
			out = append(out, c.WayID)
		}
	}
	return out
}

func TestCorridorReadsUseTheTileIndex(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := poi.NewStore(db)
		var rows []poi.POI
		for i := range 300 {
			p := offset(end, float64(i%30)*0.7, float64(i/30)*0.9)
			rows = append(rows, place(fmt.Sprintf("osm:node:%d", i+1), "Café", "cafe", p, nil))
		}
		require.NoError(t, s.Upsert(ctx, rows))
		tiles := corridor.Tiles(along(), 2000)
		for name, q := range map[string]*bun.SelectQuery{
			"places along a line": s.AroundQuery(ctx, tiles, []string{"cafe", "bakery"}),
			"ways along a line":   s.WaysQuery(ctx, tiles, poi.KindRoad),
		} {
			plan := explain(t, db, q.String())
			require.NotRegexp(t, `(Seq Scan on|SCAN) (pois|osm_ways)\b`, plan, "%s scans its table:\n%s", name, plan)
			require.Regexp(t, `pois_tile|osm_ways_tile`, plan, "%s reads the tile index:\n%s", name, plan)
		}
	})
}

// explain is the plan of query as the engine words it; PostgreSQL is told
// not to scan tables it can read by index, as a large table would.
func explain(t *testing.T, db *bun.DB, query string) string {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	prefix := "EXPLAIN QUERY PLAN "
	if db.Dialect().Name() == dialect.PG {
		_, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off")
		require.NoError(t, err)
		prefix = "EXPLAIN "
	}
	rows, err := tx.QueryContext(ctx, prefix+query)
	require.NoError(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var plan strings.Builder
	for rows.Next() {
		cells := make([]any, len(cols))
		for i := range cells {
			cells[i] = new(any)
		}
		require.NoError(t, rows.Scan(cells...))
		fmt.Fprintln(&plan, *(cells[len(cells)-1].(*any)))
	}
	return plan.String()
}
