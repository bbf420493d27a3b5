package poi_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// end is the stage end most tests search around.
var end = geo.Point{Lat: 45.0, Lon: 6.0}

// offset moves p by northKm and eastKm on the sphere (close enough for
// placing test points a few kilometres apart).
func offset(p geo.Point, northKm, eastKm float64) geo.Point {
	const kmPerDegree = geo.EarthRadius / 1000 * math.Pi / 180
	return geo.Point{
		Lat: p.Lat + northKm/kmPerDegree,
		Lon: p.Lon + eastKm/(kmPerDegree*math.Cos(p.Lat*math.Pi/180)),
	}
}

// place is a POI of category named name at p, with tags. An id ending in a
// number ("osm:node:12") gives the OSM id, 1 otherwise.
func place(id, name, category string, p geo.Point, tags poi.Tags) poi.POI {
	osmID := int64(1)
	if n, err := strconv.ParseInt(id[strings.LastIndex(id, ":")+1:], 10, 64); err == nil {
		osmID = n
	}
	return poi.POI{ID: id, Source: poi.SourceOSM, OSMType: poi.OSMNode, OSMID: osmID, Name: name,
		Category: category, Lat: p.Lat, Lon: p.Lon, Tags: tags}
}

func setup(t *testing.T, db *bun.DB, pois ...poi.POI) *poi.Store {
	t.Helper()
	s := poi.NewStore(db)
	require.NoError(t, s.Upsert(context.Background(), pois))
	return s
}

func TestStoreUpsert(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		first := poi.POI{ID: "osm:way:7", Source: poi.SourceOSM, OSMType: poi.OSMWay, OSMID: 7,
			Name: "Camping du Lac", Category: poi.TypeCampSite, Lat: 45.1, Lon: 6.2,
			Tags: poi.Tags{"website": "https://camping.example", "description": "quote \" and ünïcode"}, ImportedAt: at}
		s := setup(t, db, first)

		got, err := s.Get(ctx, "osm:way:7")
		require.NoError(t, err)
		require.WithinDuration(t, at, got.ImportedAt, time.Microsecond)
		got.ImportedAt = at
		require.Equal(t, first, got)

		second := first
		second.Name, second.Lat, second.Tags, second.ImportedAt = "Camping du Lac Bleu", 45.2, poi.Tags{"fee": "no"}, at.Add(time.Hour)
		require.NoError(t, s.Upsert(ctx, []poi.POI{second}))
		got, err = s.Get(ctx, "osm:way:7")
		require.NoError(t, err)
		require.Equal(t, "Camping du Lac Bleu", got.Name)
		require.Equal(t, 45.2, got.Lat)
		require.Equal(t, poi.Tags{"fee": "no"}, got.Tags)
		require.WithinDuration(t, at.Add(time.Hour), got.ImportedAt, time.Microsecond)

		all, err := s.InBox(ctx, poi.Box{MinLat: -90, MaxLat: 90, MinLon: -180, MaxLon: 180}, nil)
		require.NoError(t, err)
		require.Len(t, all, 1)
	})
}

func TestStoreUpsertRepeatedID(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		s := setup(t, db,
			place("osm:node:1", "old", poi.TypeHotel, end, nil),
			place("osm:node:2", "other", poi.TypeHotel, end, nil),
			place("osm:node:1", "new", poi.TypeHostel, end, nil))
		got, err := s.Get(context.Background(), "osm:node:1")
		require.NoError(t, err)
		require.Equal(t, "new", got.Name)
		require.Equal(t, poi.TypeHostel, got.Category)
		require.Equal(t, poi.Tags{}, got.Tags)
	})
}

func TestStoreManualPOI(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		manual := poi.POI{ID: "manual:abc", Source: poi.SourceManual, Name: "Chez Paul", Category: poi.TypeGuestHouse,
			Lat: 45, Lon: 6, Tags: poi.Tags{}}
		s := setup(t, db, manual)
		got, err := s.Get(context.Background(), "manual:abc")
		require.NoError(t, err)
		require.Empty(t, got.OSMType) // stored as NULL
		require.Zero(t, got.OSMID)
		require.Equal(t, poi.SourceManual, got.Source)
	})
}

func TestStoreGetUnknown(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		_, err := setup(t, db).Get(context.Background(), "osm:node:404")
		require.ErrorIs(t, err, poi.ErrNotFound)
	})
}

func TestStoreUpsertJoinsTransaction(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		s := setup(t, db)
		rollback := errors.New("roll back")
		err := storage.Tx{DB: db}.InTx(context.Background(), func(ctx context.Context) error {
			require.NoError(t, s.Upsert(ctx, []poi.POI{place("osm:node:9", "Gone", poi.TypeHotel, end, nil)}))
			_, err := s.Get(ctx, "osm:node:9") // seen inside
			require.NoError(t, err)
			return rollback
		})
		require.ErrorIs(t, err, rollback)
		_, err = s.Get(context.Background(), "osm:node:9")
		require.ErrorIs(t, err, poi.ErrNotFound)
	})
}

func TestStoreInBox(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		s := setup(t, db,
			place("a", "A", poi.TypeHotel, geo.Point{Lat: 45.0, Lon: 6.0}, nil),
			place("b", "B", poi.TypeCampSite, geo.Point{Lat: 45.5, Lon: 6.5}, nil),
			place("c", "C", poi.TypeHostel, geo.Point{Lat: 46.0, Lon: 6.0}, nil),
			place("east", "East", poi.TypeWildernessHut, geo.Point{Lat: -16.5, Lon: 179.9}, nil),
			place("west", "West", poi.TypeHotel, geo.Point{Lat: -16.5, Lon: -179.9}, nil),
		)
		tests := []struct {
			name       string
			give       poi.Box
			categories []string
			want       []string
		}{
			{name: "around a", give: poi.Box{MinLat: 44.9, MaxLat: 45.1, MinLon: 5.9, MaxLon: 6.1}, want: []string{"a"}},
			{name: "a and b", give: poi.Box{MinLat: 44.9, MaxLat: 45.6, MinLon: 5.9, MaxLon: 6.6}, want: []string{"a", "b"}},
			{name: "edges included", give: poi.Box{MinLat: 45.0, MaxLat: 46.0, MinLon: 6.0, MaxLon: 6.0}, want: []string{"a", "c"}},
			{name: "by category", give: poi.Box{MinLat: 44, MaxLat: 47, MinLon: 5, MaxLon: 7},
				categories: []string{poi.TypeCampSite, poi.TypeHostel}, want: []string{"b", "c"}},
			{name: "across the antimeridian", give: poi.Box{MinLat: -17, MaxLat: -16, MinLon: 179.5, MaxLon: -179.5},
				want: []string{"east", "west"}},
			{name: "empty", give: poi.Box{MinLat: 10, MaxLat: 11, MinLon: 10, MaxLon: 11}, want: nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.InBox(context.Background(), tt.give, tt.categories)
				require.NoError(t, err)
				var ids []string
				for _, p := range got {
					ids = append(ids, p.ID)
				}
				require.Equal(t, tt.want, ids)
			})
		}
	})
}

func TestBoxAround(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		give     geo.Point
		radiusKm float64
	}{
		{name: "alps", give: geo.Point{Lat: 45, Lon: 6}, radiusKm: 15},
		{name: "equator", give: geo.Point{Lat: 0, Lon: 0}, radiusKm: 5},
		{name: "antimeridian", give: geo.Point{Lat: -16.5, Lon: 179.99}, radiusKm: 15},
		{name: "far north", give: geo.Point{Lat: 78.2, Lon: 15.6}, radiusKm: 15},
		{name: "pole", give: geo.Point{Lat: 89.95, Lon: 0}, radiusKm: 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := poi.BoxAround(tt.give, tt.radiusKm)
			// Every point within the radius (measured as Candidates does, on
			// the ellipsoid), all around, is in the box.
			for bearing := 0.0; bearing < 360; bearing += 7.5 {
				for scale := 0.99; scale <= 1.01; scale += 0.001 {
					p := destination(tt.give, tt.radiusKm*scale, bearing)
					if geo.Distance(tt.give, p) <= tt.radiusKm*1000 {
						require.True(t, inBox(b, p), "bearing %v: %+v outside %+v", bearing, p, b)
					}
				}
			}
		})
	}
}

// destination is the point d km from p at bearing (degrees) on the sphere.
func destination(p geo.Point, d, bearing float64) geo.Point {
	rad := math.Pi / 180
	delta := d * 1000 / geo.EarthRadius
	lat1, lon1, th := p.Lat*rad, p.Lon*rad, bearing*rad
	lat2 := math.Asin(math.Sin(lat1)*math.Cos(delta) + math.Cos(lat1)*math.Sin(delta)*math.Cos(th))
	lon2 := lon1 + math.Atan2(math.Sin(th)*math.Sin(delta)*math.Cos(lat1), math.Cos(delta)-math.Sin(lat1)*math.Sin(lat2))
	lon := math.Mod(lon2/rad+540, 360) - 180
	return geo.Point{Lat: lat2 / rad, Lon: lon}
}

func inBox(b poi.Box, p geo.Point) bool {
	if p.Lat < b.MinLat || p.Lat > b.MaxLat {
		return false
	}
	if b.MinLon <= b.MaxLon {
		return p.Lon >= b.MinLon && p.Lon <= b.MaxLon
	}
	return p.Lon >= b.MinLon || p.Lon <= b.MaxLon
}
