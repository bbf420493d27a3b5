package alerts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
)

// TestContinuity runs test-scenarios.md 50 and its boundaries: a gap of
// 100 m or less is nothing, up to 500 m a warning, beyond a critical alert.
func TestContinuity(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name         string
		give         float64 // metres between the end of day 1 and the start of day 2
		wantCode     alerts.Code
		wantSeverity alerts.Severity
	}{
		{name: "joined", give: 0},
		{name: "100 m", give: 100},
		{name: "just over 100 m", give: 100.001, wantCode: alerts.CodeContinuityGapWarning, wantSeverity: alerts.SeverityWarning},
		{name: "150 m", give: 150, wantCode: alerts.CodeContinuityGapWarning, wantSeverity: alerts.SeverityWarning},
		{name: "500 m", give: 500, wantCode: alerts.CodeContinuityGapWarning, wantSeverity: alerts.SeverityWarning},
		{name: "just over 500 m", give: 500.001, wantCode: alerts.CodeContinuityGapCritical, wantSeverity: alerts.SeverityCritical},
		{name: "600 m", give: 600, wantCode: alerts.CodeContinuityGapCritical, wantSeverity: alerts.SeverityCritical},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			day1 := ride(base, 40, 0)
			day2 := ride(north(day1.End, tt.give), 40, 0)
			require.InDelta(t, tt.give, geo.Distance(day1.End, day2.Start), 1e-6)

			found := alerts.Continuity([]alerts.Stage{day1, day2})
			if tt.wantCode == "" {
				assert.Empty(t, found)
				return
			}
			require.Len(t, found, 1)
			a := found[0]
			assert.Equal(t, tt.wantCode, a.Code)
			assert.Equal(t, tt.wantSeverity, a.Severity)
			assert.Equal(t, 1, a.StageIndex, "the alert belongs to the day that starts off the route")
			assert.Contains(t, a.Message, "between the end of day 1 and the start of day 2")
			require.NotNil(t, a.Lat)
			assert.Equal(t, day1.End.Lat, *a.Lat)
			assert.Equal(t, day1.End.Lon, *a.Lon)
			require.NotNil(t, a.Action)
			assert.Equal(t, alerts.ActionNavigate, a.Action.Kind)
			assert.True(t, a.Action.Published())
			assert.Equal(t, day2.Start.Lat, a.Action.Payload["lat"])
			assert.Equal(t, day2.Start.Lon, a.Action.Payload["lon"])
			assert.Equal(t, [][][2]float64{{{day1.End.Lat, day1.End.Lon}, {day2.Start.Lat, day2.Start.Lon}}},
				a.Action.Payload["segments"])
		})
	}
}

// TestContinuityAcrossRestDay runs the last clause of test-scenarios.md 50:
// the day after a rest day must start where the last ride ended.
func TestContinuityAcrossRestDay(t *testing.T) {
	t.Parallel()

	day1 := ride(base, 40, 0)
	tests := []struct {
		name        string
		give        []alerts.Stage
		wantCodes   []alerts.Code
		wantIndexes []int
		wantMessage string
	}{
		{
			name:      "joined",
			give:      []alerts.Stage{day1, rest(day1.End), ride(day1.End, 40, 0)},
			wantCodes: []alerts.Code{}, wantIndexes: []int{},
		},
		{
			name:        "150 m after the rest day",
			give:        []alerts.Stage{day1, rest(day1.End), ride(north(day1.End, 150), 40, 0)},
			wantCodes:   []alerts.Code{alerts.CodeContinuityGapWarning},
			wantIndexes: []int{2},
			wantMessage: "Gap of 150 m between the end of day 1 and the start of day 3.",
		},
		{
			name:        "600 m after the rest day",
			give:        []alerts.Stage{day1, rest(day1.End), ride(north(day1.End, 600), 40, 0)},
			wantCodes:   []alerts.Code{alerts.CodeContinuityGapCritical},
			wantIndexes: []int{2},
			wantMessage: "Gap of 600 m between the end of day 1 and the start of day 3.",
		},
		{
			// A rest day left behind when its stages moved is itself a gap,
			// and the ride after it is still measured from the last ride.
			name:        "rest day left 300 m behind",
			give:        []alerts.Stage{day1, rest(north(day1.End, 300)), ride(day1.End, 40, 0)},
			wantCodes:   []alerts.Code{alerts.CodeContinuityGapWarning},
			wantIndexes: []int{1},
			wantMessage: "Gap of 300 m between the end of day 1 and the start of day 2.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			found := alerts.Continuity(tt.give)
			assert.Equal(t, tt.wantCodes, codes(found))
			assert.Equal(t, tt.wantIndexes, stageIndexes(found))
			if tt.wantMessage != "" {
				assert.Equal(t, tt.wantMessage, found[0].Message)
			}
		})
	}
}
