package poi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/storage/storagetest"
)

func names(accs []poi.Accommodation) []string {
	out := make([]string, len(accs))
	for i, a := range accs {
		out[i] = a.Name
	}
	return out
}

// full fills every key field of the completeness ranking.
func full() poi.Tags {
	return poi.Tags{"website": "https://w.example", "description": "d", "opening_hours": "Mo-Su 07:00-22:00",
		"wikidata": "Q1", "stars": "2", "capacity": "40"}
}

func TestCandidatesRanking(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		s := setup(t, db,
			// Six key fields beat everything, even far away.
			place("1", "Complete Hotel", poi.TypeHotel, offset(end, 4, 0), full()),
			// Two key fields; the other tag (phone) ranks it above the two
			// below with two key fields and none.
			place("2", "Hostel With Phone", poi.TypeHostel, offset(end, 0, 1), poi.Tags{"website": "w", "description": "d", "phone": "+33"}),
			// Same completeness: the cheaper bracket first (hostel 20–35
			// before chalet 30–70), whatever the distance.
			place("3", "Chalet", poi.TypeChalet, offset(end, 0, 0.2), poi.Tags{"website": "w", "capacity": "8"}),
			place("4", "Hostel", poi.TypeHostel, offset(end, 0, 3), poi.Tags{"website": "w", "stars": "1"}),
			// Same completeness and price: the nearer first.
			place("5", "Far Guest House", poi.TypeGuestHouse, offset(end, 2, 0), nil),
			place("6", "Near Guest House", poi.TypeGuestHouse, offset(end, 1, 0), nil),
			// Outside the default radius.
			place("7", "Remote Hotel", poi.TypeHotel, offset(end, 6, 0), full()),
		)
		tests := []struct {
			name     string
			radiusKm float64
			types    []string
			want     []string
		}{
			{name: "default radius", want: []string{"Complete Hotel", "Hostel With Phone", "Hostel", "Chalet", "Near Guest House"}},
			{name: "wider", radiusKm: 7, want: []string{"Complete Hotel", "Remote Hotel", "Hostel With Phone", "Hostel", "Chalet"}},
			{name: "enabled types only", types: []string{poi.TypeGuestHouse, poi.TypeChalet},
				want: []string{"Chalet", "Near Guest House", "Far Guest House"}},
			{name: "nothing of that type", types: []string{poi.TypeAlpineHut}, want: []string{}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.Candidates(context.Background(), end, tt.radiusKm, tt.types, nil)
				require.NoError(t, err)
				require.Equal(t, tt.want, names(got))
			})
		}
	})
}

func TestCandidatesDuplicates(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		s := setup(t, db,
			// A node with details and the building way drawn around it, 150 m
			// away: one place, the better described kept.
			place("osm:node:1", "Refuge du Lac", poi.TypeAlpineHut, end, poi.Tags{"website": "w"}),
			place("osm:way:2", "refuge  du LAC", poi.TypeAlpineHut, offset(end, 0.15, 0), nil),
			// The same name 400 m away is another place.
			place("osm:node:3", "Refuge du Lac", poi.TypeAlpineHut, offset(end, 0, 0.4), nil),
			// Unnamed places are never merged.
			place("osm:node:4", "", poi.TypeWildernessHut, offset(end, 1, 0), nil),
			place("osm:node:5", "", poi.TypeWildernessHut, offset(end, 1.05, 0), nil),
		)
		got, err := s.Candidates(context.Background(), end, 0, nil, nil)
		require.NoError(t, err)
		require.Len(t, got, 4)
		require.Equal(t, "Refuge du Lac", got[0].Name)
		require.Equal(t, "w", got[0].URL)
		var ids []int64
		for _, a := range got {
			require.NotEqual(t, "refuge  du LAC", a.Name)
			ids = append(ids, a.OSMID)
		}
		require.ElementsMatch(t, []int64{1, 3, 4, 5}, ids)
	})
}

func TestCandidatesCheapSlot(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		var pois []poi.POI
		for i, n := range []string{"H1", "H2", "H3", "H4", "H5", "H6"} {
			pois = append(pois, place("h"+n, n, poi.TypeHotel, offset(end, float64(i)*0.1, 0), full()))
		}
		pois = append(pois,
			place("camp", "Bare Camp", poi.TypeCampSite, offset(end, 3, 0), nil),
			place("hut", "Bare Hut", poi.TypeWildernessHut, offset(end, 2, 0), nil))
		s := setup(t, db, pois...)
		tests := []struct {
			name  string
			types []string
			want  []string
		}{
			// The hut ranks above the camp site (0–10 € before 8–25 €) and
			// takes the fifth place.
			{name: "hut replaces the fifth", want: []string{"H1", "H2", "H3", "H4", "Bare Hut"}},
			{name: "camp site when huts are off", types: []string{poi.TypeHotel, poi.TypeCampSite},
				want: []string{"H1", "H2", "H3", "H4", "Bare Camp"}},
			{name: "none enabled", types: []string{poi.TypeHotel}, want: []string{"H1", "H2", "H3", "H4", "H5"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.Candidates(context.Background(), end, 0, tt.types, nil)
				require.NoError(t, err)
				require.Equal(t, tt.want, names(got))
			})
		}
	})
}

func TestCandidatesCheapAlreadyIn(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		s := setup(t, db,
			place("c", "Good Camp", poi.TypeCampSite, end, full()),
			place("1", "H1", poi.TypeHotel, end, poi.Tags{"website": "w"}),
			place("2", "H2", poi.TypeHotel, end, poi.Tags{"website": "w"}),
			place("3", "H3", poi.TypeHotel, end, poi.Tags{"website": "w"}),
			place("4", "H4", poi.TypeHotel, end, poi.Tags{"website": "w"}),
			place("5", "H5", poi.TypeHotel, end, poi.Tags{"website": "w"}),
			place("h", "Bare Hut", poi.TypeWildernessHut, end, nil),
		)
		got, err := s.Candidates(context.Background(), end, 0, nil, nil)
		require.NoError(t, err)
		require.Equal(t, []string{"Good Camp", "H1", "H2", "H3", "H4"}, names(got))
	})
}

func TestCandidatesRadius(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		var pois []poi.POI
		for _, km := range []float64{4.9, 5.1, 14.9, 15.1} {
			pois = append(pois, place(fmt.Sprintf("east-%.1f", km), "", poi.TypeHotel, offset(end, 0, km), nil))
		}
		s := setup(t, db, pois...)
		tests := []struct {
			name       string
			give       float64
			wantRadius float64
			wantCount  int
		}{
			{name: "zero is the default", give: 0, wantRadius: 5, wantCount: 1},
			{name: "negative is the default", give: -3, wantRadius: 5, wantCount: 1},
			{name: "ten", give: 10, wantRadius: 10, wantCount: 2},
			{name: "clamped to fifteen", give: 40, wantRadius: 15, wantCount: 3},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.Candidates(context.Background(), end, tt.give, nil, nil)
				require.NoError(t, err)
				require.Len(t, got, tt.wantCount)
				for _, a := range got {
					require.LessOrEqual(t, a.DistanceToEndPoint, tt.wantRadius)
				}
			})
		}
	})
}

func TestCandidatesFields(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		p := offset(end, 0, 2)
		s := setup(t, db, poi.POI{ID: "osm:way:42", Source: poi.SourceOSM, OSMType: poi.OSMWay, OSMID: 42,
			Name: "Camping des Prés", Category: poi.TypeCampSite, Lat: p.Lat, Lon: p.Lon, Tags: poi.Tags{
				"website": "https://camping.example", "description": "Shaded pitches", "opening_hours": "May-Sep",
				"phone": "+33 4 00", "address": "Route du Lac, 05100 Briançon", "charge": "12.50 EUR",
			}})
		january := time.Date(2027, 1, 15, 0, 0, 0, 0, time.UTC)
		july := time.Date(2027, 7, 15, 0, 0, 0, 0, time.UTC)
		tests := []struct {
			name       string
			give       *time.Time
			wantClosed bool
		}{
			{name: "no date", give: nil, wantClosed: false},
			{name: "january", give: &january, wantClosed: true},
			{name: "july", give: &july, wantClosed: false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.Candidates(context.Background(), end, 0, nil, tt.give)
				require.NoError(t, err)
				require.Len(t, got, 1)
				require.InDelta(t, 2.0, got[0].DistanceToEndPoint, 0.02)
				got[0].DistanceToEndPoint = 0
				require.Equal(t, poi.Accommodation{
					Name: "Camping des Prés", Type: poi.TypeCampSite, Lat: p.Lat, Lon: p.Lon,
					EstimatedPriceMin: 12.5, EstimatedPriceMax: 12.5, IsExactPrice: true,
					URL: "https://camping.example", PossibleClosed: tt.wantClosed, Source: poi.SourceOSM,
					Description: "Shaded pitches", OpeningHours: "May-Sep", Phone: "+33 4 00",
					Address: "Route du Lac, 05100 Briançon", OSMType: poi.OSMWay, OSMID: 42,
				}, got[0])
			})
		}
	})
}

func TestCandidatesRefuses(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		s := setup(t, db)
		_, err := s.Candidates(context.Background(), end, 5, []string{poi.TypeHotel, "other"}, nil)
		require.ErrorIs(t, err, poi.ErrUnknownType)
		_, err = s.Candidates(context.Background(), end, 5, []string{"castle"}, nil)
		require.ErrorIs(t, err, poi.ErrUnknownType)
		_, err = s.Candidates(context.Background(), geo.Point{Lat: 91, Lon: 6}, 5, nil, nil)
		require.Error(t, err)
	})
}

// TestImportThenCandidates runs the path end to end: the XML fixture
// imported into each engine, then read back as candidates.
func TestImportThenCandidates(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := poi.NewStore(db)
		stats, err := poi.Importer{BatchSize: 2}.Import(ctx, s, strings.NewReader(fixtureXML), poi.FormatXML)
		require.NoError(t, err)
		require.Equal(t, 3, stats.Batches)
		// Importing again updates in place.
		_, err = poi.Import(ctx, s, strings.NewReader(fixtureXML), poi.FormatXML)
		require.NoError(t, err)

		january := time.Date(2027, 1, 10, 0, 0, 0, 0, time.UTC)
		got, err := s.Candidates(ctx, end, 15, nil, &january)
		require.NoError(t, err)
		require.Equal(t, []string{"Hôtel du Col", "Camping des Prés", "", "Half Hostel", "Gîte Inline"}, names(got))

		hotel := got[0]
		require.Equal(t, "+33 4 92 00 00 00", hotel.Phone)
		require.Equal(t, "12 Rue Haute, 05100 Briançon", hotel.Address)
		require.Equal(t, 67.5, hotel.EstimatedPriceMin) // 3 stars: floor lifted by 25 % of 50–120
		require.Equal(t, 120.0, hotel.EstimatedPriceMax)
		camp := got[1]
		require.True(t, camp.PossibleClosed) // Apr-Oct, in January
		require.Equal(t, []float64{8, 15}, []float64{camp.EstimatedPriceMin, camp.EstimatedPriceMax})
		hut := got[2]
		require.Equal(t, poi.TypeWildernessHut, hut.Type)
		require.True(t, hut.IsExactPrice) // fee=no
		require.Zero(t, hut.EstimatedPriceMax)
	})
}

// TestCandidatesReadPlacesFiledBeforeTiles: a place stored before the tile
// column (tile -1) is still a candidate; one of another category or
// beyond the radius is not.
func TestCandidatesReadPlacesFiledBeforeTiles(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := poi.NewStore(db)
		require.NoError(t, s.Upsert(ctx, []poi.POI{
			place("osm:node:1", "Hôtel ancien", poi.TypeHotel, offset(end, 1, 1), nil),
			place("osm:node:2", "Hôtel récent", poi.TypeHotel, offset(end, -2, 0), nil),
			place("osm:node:3", "Café ancien", "cafe", offset(end, 0, 1), nil),
			place("osm:node:4", "Hôtel lointain", poi.TypeHotel, offset(end, 0, 9), nil),
		}))
		_, err := db.NewUpdate().Table("pois").Set("tile = -1").Where("id IN (?)", bun.List([]string{"osm:node:1", "osm:node:3", "osm:node:4"})).Exec(ctx)
		require.NoError(t, err)
		got, err := s.Candidates(ctx, end, 5, nil, nil)
		require.NoError(t, err)
		require.ElementsMatch(t, []string{"Hôtel ancien", "Hôtel récent"}, names(got))
	})
}

// TestCandidatesDuplicatesAmongNamesakes: hotels all named alike are
// each kept, 250 m apart; one drawn again 180 m off one of them, whichever
// way, is merged with it.
func TestCandidatesDuplicatesAmongNamesakes(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		for _, again := range []struct{ north, east float64 }{{0.18, 0}, {-0.18, 0}, {0, 0.18}, {0.127, -0.127}, {0.3, 0}} {
			pois := []poi.POI{
				place("osm:node:1", "Hôtel", poi.TypeHotel, end, nil),
				place("osm:node:2", "Hôtel", poi.TypeHotel, offset(end, 0.25, 0), nil),
				place("osm:node:3", "Hôtel", poi.TypeHotel, offset(end, 0.5, 0), nil),
				place("osm:way:4", "HÔTEL", poi.TypeHotel, offset(end, 0.25+again.north, 2+again.east), nil),
				place("osm:node:5", "Hôtel", poi.TypeHotel, offset(end, 0.25, 2), nil),
			}
			s := setup(t, db, pois...)
			got, err := s.Candidates(context.Background(), end, 5, nil, nil)
			require.NoError(t, err)
			want := 4
			if again.north == 0.3 {
				want = 5 // 300 m off: another place
			}
			require.Len(t, got, want, "%+v", again)
		}
	})
}
