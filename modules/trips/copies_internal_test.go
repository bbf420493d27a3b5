package trips

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/routefixture"
)

// TestCollectionKeepsOneDayPerTour: a Komoot collection of three tours
// gives three days, one per tour and in their order, whatever the pacing
// says (a cap of 30 km would cut the 120 km tour into four).
func TestCollectionKeepsOneDayPerTour(t *testing.T) {
	t.Parallel()
	shifted := func(km int, dLat float64) []geo.Point {
		pts := routefixture.Zigzag(float64(km) * 1000)
		for i := range pts {
			pts[i].Lat += dLat
		}
		return pts
	}
	tours := [][]geo.Point{shifted(50, 0), shifted(120, 0.5), shifted(20, 1)}
	rec, err := routeRecord(context.Background(), "trip", Imported{SourceType: "komoot_collection", Tracks: tours})
	require.NoError(t, err)
	tr := &Trip{FatigueFactor: 0.5, ElevationPenalty: 50, MaxDistancePerDay: 30}
	days, err := Plan(context.Background(), tr, rec)
	require.NoError(t, err)
	require.Len(t, days, 3)
	for i, want := range []float64{50, 120, 20} {
		require.InDelta(t, want, days[i].Distance, want*0.02, "day %d is tour %d", i+1, i+1)
		require.Equal(t, tours[i][0].Lat, days[i].Start.Lat, "day %d starts where tour %d does", i+1, i+1)
	}
}

// TestCopyPlan: a copy keeps what settled and plans again what had not,
// dispatching only the roots of what it plans.
func TestCopyPlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		give      StatusMap
		wantRoots []string
		pending   []string
	}{
		{"everything settled", StatusMap{"route": "done", "stages": "done", "terrain": "done", "accommodations": "failed"}, nil, nil},
		{"an enrichment running", StatusMap{"route": "done", "stages": "done", "terrain": "running", "accommodations": "done"},
			[]string{"terrain"}, []string{"terrain"}},
		{"not imported yet", StatusMap{"route": "pending", "stages": "pending", "terrain": "pending", "accommodations": "pending"},
			[]string{"route"}, []string{"route", "stages", "terrain", "accommodations"}},
		{"superseded counts as settled", StatusMap{"route": "done", "stages": "done", "terrain": "superseded", "accommodations": "done"}, nil, nil},
	}
	for _, tt := range tests {
		statuses := StatusMap{}
		for k, v := range tt.give {
			statuses[k] = v
		}
		plan, roots := copyPlan(statuses)
		require.Equal(t, tt.wantRoots, roots, tt.name)
		for name, st := range tt.give {
			want := st
			for _, p := range tt.pending {
				if p == name {
					want = StatusPending
				}
			}
			require.Equal(t, want, statuses[name], "%s: %s on the copy", tt.name, name)
			require.Equal(t, want, plan[name], "%s: %s recorded", tt.name, name)
		}
	}
}

// TestRecomputePlan: what each change re-runs, and the whole fan-out while
// the first analysis has not settled.
func TestRecomputePlan(t *testing.T) {
	t.Parallel()
	settled := StatusMap{"route": "done", "stages": "done", "terrain": "done", "accommodations": "done"}
	tests := []struct {
		name     string
		statuses StatusMap
		mods     []Modification
		want     []string
	}{
		{"dates: the date rules, the weather's wind and fords with it", settled, []Modification{{Type: ModDates}},
			[]string{ComputeAccommodations, ComputeTerrain, ComputeWeather, ComputeCalendar, ComputeWind, ComputeCultural, ComputeFords, ComputeEvents}},
		{"a day's recalculation", settled, []Modification{{Type: ModAccommodation, StageIndex: new(int)}},
			[]string{ComputePOIs, ComputeAccommodations, ComputeTerrain, ComputeBikeShops, ComputeEvents}},
		{"one change twice", settled, []Modification{{Type: ModPacing}, {Type: ModPacing}}, enrichments},
		{"analysis under way", StatusMap{"route": "done", "stages": "done", "terrain": "running", "accommodations": "done"},
			[]Modification{{Type: ModDates}}, enrichments},
		{"nothing known of the kind", settled, []Modification{{Type: "weather"}}, nil},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, recomputePlan(tt.statuses, tt.mods), tt.name)
	}
}
