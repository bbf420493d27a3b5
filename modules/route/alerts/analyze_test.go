package alerts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
)

// eventful is a trip that trips every rule of this package once: day 2
// starts 600 m off, climbs 1 500 m with a steep ramp, overruns an e-bike and
// arrives after dark in Paris in December; day 7 closes a run of three
// riding days. Day 4 is a rest day carrying a ride's figures, which every
// riding rule must ignore.
func eventful() (alerts.Trip, []alerts.Stage) {
	ramp := climb(repeat(6, seg{100, 0.10})...)
	day2 := alerts.Stage{Geometry: ramp, Distance: 110, Ascent: 1500, Start: north(paris, 600), End: paris}
	day4 := rest(paris)
	day4.Geometry, day4.Distance, day4.Ascent = ramp, 200, 5000
	trip := alerts.Trip{StartDate: date(2025, 12, 21), DepartureHour: 9, AverageSpeed: 15, EbikeMode: true}
	return trip, []alerts.Stage{
		arriving(paris, 40), day2, arriving(paris, 40), day4,
		arriving(paris, 40), arriving(paris, 40), arriving(paris, 40), arriving(paris, 40),
	}
}

// TestAnalyze checks the priority order of pipeline.md §8 (continuity 5,
// elevation 10, steep/e-bike/sunset 20, rest day 100) and that rest days
// skip every riding rule.
func TestAnalyze(t *testing.T) {
	t.Parallel()

	trip, stages := eventful()
	found, err := alerts.Analyzer{Zones: zoneIn(t, "Europe/Paris")}.Analyze(trip, stages)
	require.NoError(t, err)

	assert.Equal(t, []alerts.Code{
		alerts.CodeContinuityGapCritical,
		alerts.CodeElevationGain,
		alerts.CodeSteepGradient,
		alerts.CodeEbikeRangeExceeded,
		alerts.CodeSunsetArrivalAfterTwilight,
		alerts.CodeRestDaySuggested,
	}, codes(found))
	assert.Equal(t, []int{1, 1, 1, 1, 1, 6}, stageIndexes(found))
}

func TestAnalyzeWithoutStartDate(t *testing.T) {
	t.Parallel()

	trip, stages := eventful()
	trip.StartDate = nil
	found, err := alerts.Analyzer{Zones: zoneIn(t, "Europe/Paris")}.Analyze(trip, stages)
	require.NoError(t, err)
	assert.NotContains(t, codes(found), alerts.CodeSunsetArrivalAfterTwilight)
	assert.Len(t, found, 5)
}

// TestAnalyzeDeterministic runs the package-level Analyze, with the embedded
// time zones, several times: same input, same alerts, the same as with the
// zone given by hand.
func TestAnalyzeDeterministic(t *testing.T) {
	t.Parallel()

	trip, stages := eventful()
	want, err := alerts.Analyzer{Zones: zoneIn(t, "Europe/Paris")}.Analyze(trip, stages)
	require.NoError(t, err)
	for range 3 {
		got, err := alerts.Analyze(trip, stages)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	sunset := want[4]
	assert.Equal(t, "Arrival about 23:13, after dusk at 17:34 (local time).", sunset.Message)
}

// TestAnalyzePublic runs test-scenarios.md 55 on a whole analysis: what
// clients read keeps navigate actions and nulls the auto_fix ones.
func TestAnalyzePublic(t *testing.T) {
	t.Parallel()

	trip, stages := eventful()
	found, err := alerts.Analyzer{Zones: zoneIn(t, "Europe/Paris")}.Analyze(trip, stages)
	require.NoError(t, err)

	published := map[alerts.Code]bool{}
	for _, a := range found {
		require.NotNil(t, a.Action, "%s computes an action", a.Code)
		published[a.Code] = a.Public().Action != nil
	}
	assert.Equal(t, map[alerts.Code]bool{
		alerts.CodeContinuityGapCritical:      true,  // navigate
		alerts.CodeElevationGain:              false, // auto_fix
		alerts.CodeSteepGradient:              true,  // navigate
		alerts.CodeEbikeRangeExceeded:         false, // auto_fix, no charger known
		alerts.CodeSunsetArrivalAfterTwilight: false, // auto_fix
		alerts.CodeRestDaySuggested:           false, // auto_fix
	}, published)
}
