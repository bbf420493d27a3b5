package alerts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
)

// TestElevationGain runs test-scenarios.md 49: more than 1 200 m of D+ is a
// big climb, 1 200 m is not.
func TestElevationGain(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give alerts.Stage
		want bool
	}{
		{name: "1 201 m", give: ride(base, 60, 1201), want: true},
		{name: "1 200 m", give: ride(base, 60, 1200), want: false},
		{name: "1 200.5 m", give: ride(base, 60, 1200.5), want: true},
		{name: "flat", give: ride(base, 60, 0), want: false},
		{name: "rest day", give: func() alerts.Stage { s := rest(base); s.Ascent = 2000; return s }(), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			found := alerts.ElevationGain([]alerts.Stage{ride(base, 30, 0), tt.give})
			if !tt.want {
				assert.Empty(t, found)
				return
			}
			require.Len(t, found, 1)
			a := found[0]
			assert.Equal(t, alerts.CodeElevationGain, a.Code)
			assert.Equal(t, alerts.SeverityWarning, a.Severity)
			assert.Equal(t, 1, a.StageIndex)
			assert.Equal(t, 1, a.StageIndex, "the second day's")
			require.NotNil(t, a.Action)
			assert.Equal(t, alerts.ActionAutoFix, a.Action.Kind)
			assert.False(t, a.Action.Published(), "an auto_fix is computed, not delivered")
			assert.Equal(t, 1, a.Action.Payload["stageIndex"])
			assert.Equal(t, 30.0, a.Action.Payload["atKm"], "split at half distance")
			mid := (tt.give.Start.Lat + tt.give.End.Lat) / 2
			assert.InDelta(t, mid, a.Action.Payload["lat"], 1e-4)
		})
	}
}

// TestSteepGradient covers the run rule: consecutive uphill segments each at
// least 8 %, at least 500 m together, one alert per run.
func TestSteepGradient(t *testing.T) {
	t.Parallel()

	flat := seg{100, 0}
	tests := []struct {
		name        string
		give        []seg
		wantLengths []float64 // km, as the message rounds them
		wantGrades  []float64 // %, mean of each run
	}{
		{name: "520 m at 9 %", give: repeat(5, seg{104, 0.09}), wantLengths: []float64{0.52}, wantGrades: []float64{9}},
		{name: "500.1 m at 9 %", give: repeat(3, seg{166.7, 0.09}), wantLengths: []float64{0.5001}, wantGrades: []float64{9}},
		{name: "499.9 m at 9 %", give: repeat(3, seg{166.633, 0.09})},
		{name: "600 m at exactly 8 %", give: repeat(6, seg{100, 0.08}), wantLengths: []float64{0.6}, wantGrades: []float64{8}},
		{name: "600 m at 7.99 %", give: repeat(6, seg{100, 0.0799})},
		{
			name:        "mixed grades average",
			give:        []seg{{300, 0.08}, {300, 0.12}},
			wantLengths: []float64{0.6}, wantGrades: []float64{10},
		},
		{
			name: "broken by one easier segment",
			give: []seg{{300, 0.10}, {50, 0.07}, {300, 0.10}},
		},
		{
			name:        "two runs",
			give:        append(append(repeat(6, seg{100, 0.10}), flat), repeat(7, seg{100, 0.09})...),
			wantLengths: []float64{0.6, 0.7}, wantGrades: []float64{10, 9},
		},
		{name: "steep descent", give: repeat(6, seg{100, -0.12})},
		{name: "flat", give: repeat(10, flat)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			line := climb(tt.give...)
			stage := alerts.Stage{Geometry: line, Start: line[0], End: line[len(line)-1], Distance: 2}
			found := alerts.SteepGradient([]alerts.Stage{stage})
			require.Len(t, found, len(tt.wantLengths))
			for i, a := range found {
				assert.Equal(t, alerts.CodeSteepGradient, a.Code)
				assert.Equal(t, alerts.SeverityWarning, a.Severity)
				assert.Equal(t, 0, a.StageIndex)
				require.NotNil(t, a.Action)
				assert.Equal(t, alerts.ActionNavigate, a.Action.Kind)
				assert.Equal(t, *a.Lat, a.Action.Payload["lat"], "navigate to the foot of the climb")
				segments := a.Action.Payload["segments"].([][][2]float64)
				require.Len(t, segments, 1)
				assert.Equal(t, [2]float64{*a.Lat, *a.Lon}, segments[0][0])

				var length, grade float64
				_, err := readSteep(a.Message, &length, &grade)
				require.NoError(t, err, a.Message)
				assert.InDelta(t, tt.wantLengths[i], length, 0.05, a.Message)
				assert.InDelta(t, tt.wantGrades[i], grade, 0.05, a.Message)
			}
		})
	}
}

func TestSteepGradientSkipsRestDays(t *testing.T) {
	t.Parallel()

	line := climb(repeat(10, seg{100, 0.15})...)
	stage := alerts.Stage{Geometry: line, Start: line[0], End: line[len(line)-1], IsRestDay: true}
	assert.Empty(t, alerts.SteepGradient([]alerts.Stage{stage}))
}

// TestSteepGradientMessage pins the text once.
func TestSteepGradientMessage(t *testing.T) {
	t.Parallel()

	line := climb(repeat(12, seg{100, 0.095})...)
	stages := []alerts.Stage{ride(base, 20, 0), {Geometry: line, Start: line[0], End: line[len(line)-1], Distance: 1.2}}
	found := alerts.SteepGradient(stages)
	require.Len(t, found, 1)
	assert.Equal(t, "Steep climb: 1.2 km at 9.5 % on average.", found[0].Message)
	assert.Equal(t, 1, found[0].StageIndex)
}
