package poi_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/route/corridor"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/storage/storagetest"
)

// nearestOfAll is the nearest place as a rule read it from the whole
// circle: every place within radius, the first of the nearest on the
// sphere in the order Along gives.
func nearestOfAll(t *testing.T, s *poi.Store, p geo.Point, radius float64, categories []string, accept func(poi.POI) bool) (poi.Found, bool) {
	t.Helper()
	all, err := s.Along(context.Background(), corridor.NewLine([]geo.Point{p}, radius), radius, categories)
	require.NoError(t, err)
	var best poi.Found
	bestD, ok := 0.0, false
	for _, f := range all {
		if accept != nil && !accept(f.POI) {
			continue
		}
		if d := geo.Haversine(p, geo.Point{Lat: f.Lat, Lon: f.Lon}); !ok || d < bestD {
			best, bestD, ok = f, d, true
		}
	}
	return best, ok
}

func TestNearestIsTheNearestOfTheWholeCircle(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := poi.NewStore(db)
		_, err := db.NewDelete().Table("pois").Where("1 = 1").Exec(ctx)
		require.NoError(t, err)
		// Sparse stations and dense pharmacies over 40 km around end, and
		// a shop that says it does not repair.
		r := rand.New(rand.NewPCG(3, 4))
		var pois []poi.POI
		for i := range 600 {
			cat := "pharmacy"
			if i%20 == 0 {
				cat = "station"
			}
			at := offset(end, (r.Float64()*2-1)*20, (r.Float64()*2-1)*20)
			pois = append(pois, poi.POI{ID: fmt.Sprintf("osm:node:%d", i+1), Source: poi.SourceOSM, Name: cat, Category: cat, Lat: at.Lat, Lon: at.Lon})
		}
		noRepair := offset(end, 0.2, 0)
		pois = append(pois,
			poi.POI{ID: "osm:node:9001", Source: poi.SourceOSM, Name: "Vente", Category: "bicycle", Lat: noRepair.Lat, Lon: noRepair.Lon,
				Tags: poi.Tags{poi.TagRepair: "no"}},
			poi.POI{ID: "osm:node:9002", Source: poi.SourceOSM, Name: "Atelier", Category: "bicycle", Lat: offset(end, 3, 3).Lat, Lon: offset(end, 3, 3).Lon})
		require.NoError(t, s.Upsert(ctx, pois))
		repairs := func(p poi.POI) bool { return p.Tags[poi.TagRepair] != "no" }

		for _, tc := range []struct {
			name       string
			at         geo.Point
			radius     float64
			categories []string
			accept     func(poi.POI) bool
			want       string // the id expected, "" for none
		}{
			{name: "dense, found in the first ring", at: end, radius: 15_000, categories: []string{"pharmacy"}},
			{name: "sparse, found rings out", at: offset(end, 5, -7), radius: 10_000, categories: []string{"station"}},
			{name: "none within a small radius", at: offset(end, 30, 30), radius: 2_000, categories: []string{"station"}},
			{name: "a refused place is passed over", at: end, radius: 5_000, categories: []string{"bicycle"}, accept: repairs, want: "osm:node:9002"},
			{name: "the refused place is the nearest when taken", at: end, radius: 5_000, categories: []string{"bicycle"}, want: "osm:node:9001"},
			{name: "beyond the radius is none", at: end, radius: 300, categories: []string{"bicycle"}, accept: repairs},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, ok, err := s.Nearest(ctx, tc.at, tc.radius, tc.categories, tc.accept)
				require.NoError(t, err)
				want, wantOK := nearestOfAll(t, s, tc.at, tc.radius, tc.categories, tc.accept)
				require.Equal(t, wantOK, ok)
				require.Equal(t, want.ID, got.ID)
				if tc.want != "" {
					require.Equal(t, tc.want, got.ID)
				}
			})
		}
		// Many points: the ring search agrees with the whole circle.
		for k := range 40 {
			at := offset(end, (r.Float64()*2-1)*25, (r.Float64()*2-1)*25)
			got, ok, err := s.Nearest(ctx, at, 10_000, []string{"station"}, nil)
			require.NoError(t, err)
			want, wantOK := nearestOfAll(t, s, at, 10_000, []string{"station"}, nil)
			require.Equal(t, wantOK, ok, "point %d", k)
			require.Equal(t, want.ID, got.ID, "point %d", k)
		}
	})
}
