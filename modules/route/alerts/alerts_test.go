package alerts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
)

// TestCodes pins the vocabulary of pipeline.md §8: clients dedupe and
// dismiss by these strings, so changing one is a breaking change.
func TestCodes(t *testing.T) {
	t.Parallel()

	want := []alerts.Code{
		"continuity_gap_critical", "continuity_gap_warning", "elevation_gain", "steep_gradient",
		"surface_rough", "traffic_main_road", "traffic_secondary_road_fast", "traffic_secondary_road_slow",
		"ebike_range_exceeded", "sunset_arrival_after_twilight", "rest_day_suggested",
		"calendar_public_holiday", "calendar_sunday", "wind_headwind", "comfort_poor_conditions",
		"bike_shop_none_nearby", "resupply_none_on_stage", "resupply_closed_at_passage",
		"accommodation_seasonal_closure", "water_point_gap", "cultural_poi_suggestion",
		"railway_station_none_nearby", "health_service_none_nearby", "border_crossing",
		"ferry_crossing", "ford_crossing_wet", "ford_crossing_dry",
	}
	got := alerts.Codes()
	require.Equal(t, want, got, "change the table in pipeline.md §8 and this list together")
	require.Len(t, got, 27)

	got[0] = "changed"
	assert.Equal(t, alerts.CodeContinuityGapCritical, alerts.Codes()[0], "Codes hands out copies")
}

// TestPublished runs test-scenarios.md 55: navigate and dismiss actions are
// delivered, auto_fix and detour read as a null action.
func TestPublished(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give *alerts.Action
		want bool
	}{
		{name: "navigate", give: &alerts.Action{Kind: alerts.ActionNavigate}, want: true},
		{name: "dismiss", give: &alerts.Action{Kind: alerts.ActionDismiss}, want: true},
		{name: "auto_fix", give: &alerts.Action{Kind: alerts.ActionAutoFix}, want: false},
		{name: "detour", give: &alerts.Action{Kind: alerts.ActionDetour}, want: false},
		{name: "none", give: nil, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			assert.Equal(t, tt.want, tt.give.Published())

			computed := alerts.Alert{Code: alerts.CodeElevationGain, Action: tt.give}
			public := computed.Public()
			if tt.want {
				assert.Equal(t, tt.give, public.Action)
			} else {
				assert.Nil(t, public.Action)
			}
			assert.Same(t, tt.give, computed.Action, "Public leaves the computed alert alone")
		})
	}
}

func TestByStage(t *testing.T) {
	t.Parallel()

	found := []alerts.Alert{
		{Code: alerts.CodeElevationGain, StageIndex: 1},
		{Code: alerts.CodeWindHeadwind, StageIndex: alerts.TripLevel},
		{Code: alerts.CodeSteepGradient, StageIndex: 1},
		{Code: alerts.CodeRestDaySuggested, StageIndex: 0},
		{Code: alerts.CodeBorderCrossing, StageIndex: 7},
	}
	stages, trip := alerts.ByStage(found, 3)

	require.Len(t, stages, 3)
	assert.Equal(t, []alerts.Code{alerts.CodeRestDaySuggested}, codes(stages[0]))
	assert.Equal(t, []alerts.Code{alerts.CodeElevationGain, alerts.CodeSteepGradient}, codes(stages[1]))
	assert.NotNil(t, stages[2], "computed and empty is not never computed")
	assert.Empty(t, stages[2])
	assert.Equal(t, []alerts.Code{alerts.CodeWindHeadwind, alerts.CodeBorderCrossing}, codes(trip))
}
