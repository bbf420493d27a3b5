package alerts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
)

func TestEbikeRange(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give float64 // D+, m
		want float64 // km
	}{
		{name: "flat", give: 0, want: 80},
		{name: "500 m", give: 500, want: 60},
		{name: "1 000 m", give: 1000, want: 40},
		{name: "2 000 m", give: 2000, want: 0},
		{name: "3 000 m floors at zero", give: 3000, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, alerts.EbikeRange(tt.give))
		})
	}
}

// TestEbikeRangeExceeded runs test-scenarios.md 52 and its boundaries.
func TestEbikeRangeExceeded(t *testing.T) {
	t.Parallel()

	type give struct {
		ebike      bool
		km, ascent float64
		restDay    bool
	}
	tests := []struct {
		name      string
		give      give
		want      bool
		wantRange float64
	}{
		{name: "70 km, 500 m, e-bike on", give: give{ebike: true, km: 70, ascent: 500}, want: true, wantRange: 60},
		{name: "70 km, 500 m, e-bike off", give: give{ebike: false, km: 70, ascent: 500}},
		{name: "exactly the range", give: give{ebike: true, km: 60, ascent: 500}},
		{name: "just over the range", give: give{ebike: true, km: 60.01, ascent: 500}, want: true, wantRange: 60},
		{name: "80 km flat", give: give{ebike: true, km: 80}},
		{name: "81 km flat", give: give{ebike: true, km: 81}, want: true, wantRange: 80},
		{name: "range zero", give: give{ebike: true, km: 1, ascent: 2500}, want: true, wantRange: 0},
		{name: "rest day", give: give{ebike: true, restDay: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			stage := ride(base, tt.give.km, tt.give.ascent)
			if tt.give.restDay {
				stage = rest(base)
			}
			trip := alerts.Trip{EbikeMode: tt.give.ebike, AverageSpeed: 15, DepartureHour: 8}
			found := alerts.EbikeRangeExceeded(trip, []alerts.Stage{stage}, nil)
			if !tt.want {
				assert.Empty(t, found)
				return
			}
			require.Len(t, found, 1)
			a := found[0]
			assert.Equal(t, alerts.CodeEbikeRangeExceeded, a.Code)
			assert.Equal(t, alerts.SeverityWarning, a.Severity)
			assert.Equal(t, 0, a.StageIndex)
			require.NotNil(t, a.Action)
			assert.Equal(t, alerts.ActionAutoFix, a.Action.Kind, "no charger known: shorten the day")
			assert.Equal(t, tt.wantRange, a.Action.Payload["maxDistanceKm"])
			require.NotNil(t, a.Lat, "the alert sits where the battery runs out")
			assert.InDelta(t, tt.wantRange*1000, geo.Distance(stage.Start, geo.Point{Lat: *a.Lat, Lon: *a.Lon}), 1)
		})
	}
}

func TestEbikeRangeExceededMessage(t *testing.T) {
	t.Parallel()

	trip := alerts.Trip{EbikeMode: true}
	found := alerts.EbikeRangeExceeded(trip, []alerts.Stage{ride(base, 40, 0), ride(base, 70, 500)}, nil)
	require.Len(t, found, 1)
	assert.Equal(t, 1, found[0].StageIndex)
	assert.Equal(t, "70 km with 500 m of climbing: an e-bike battery lasts about 60 km.", found[0].Message)
	assert.Equal(t, "Shorten this day to 60 km", found[0].Action.Label)
}

// TestEbikeRangeExceededCharger checks the navigate action of pipeline.md
// §8: the nearest charger within 2 km of where the battery runs out.
func TestEbikeRangeExceededCharger(t *testing.T) {
	t.Parallel()

	stage := ride(base, 70, 500)
	drained := north(base, 60_000)
	near := north(drained, 1500)
	nearer := north(drained, 800)
	far := north(drained, 2500)

	tests := []struct {
		name     string
		give     []geo.Point
		wantKind alerts.ActionKind
		wantAt   geo.Point
	}{
		{name: "none known", give: nil, wantKind: alerts.ActionAutoFix},
		{name: "beyond 2 km", give: []geo.Point{far}, wantKind: alerts.ActionAutoFix},
		{name: "within 2 km", give: []geo.Point{far, near}, wantKind: alerts.ActionNavigate, wantAt: near},
		{name: "nearest wins", give: []geo.Point{near, nearer, far}, wantKind: alerts.ActionNavigate, wantAt: nearer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			found := alerts.EbikeRangeExceeded(alerts.Trip{EbikeMode: true}, []alerts.Stage{stage}, tt.give)
			require.Len(t, found, 1)
			action := found[0].Action
			require.NotNil(t, action)
			assert.Equal(t, tt.wantKind, action.Kind)
			if tt.wantKind == alerts.ActionNavigate {
				assert.Equal(t, tt.wantAt.Lat, action.Payload["lat"])
				assert.Equal(t, tt.wantAt.Lon, action.Payload["lon"])
				assert.True(t, action.Published())
			}
		})
	}
}
