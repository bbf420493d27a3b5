package alerts_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
)

// arriving is a riding stage of km kilometres, flat, ending at end. Only its
// end and its length matter to the sunset rule.
func arriving(end geo.Point, km float64) alerts.Stage {
	return alerts.Stage{Geometry: []geo.Point{end, end}, Distance: km, Start: end, End: end}
}

// TestSunsetArrival runs test-scenarios.md 53 and the rule's clauses, with
// every point in one time zone. Paris civil dusk: 17:33 CET on 21 December,
// 17:34 on the 22nd, 22:40 CEST on 21 June; Oslo 00:28 CEST after 21 June.
func TestSunsetArrival(t *testing.T) {
	t.Parallel()

	type give struct {
		start     *time.Time
		departure int
		zone      string
		stages    []alerts.Stage
	}
	tests := []struct {
		name        string
		give        give
		wantIndexes []int
		wantMessage string // of the first alert
		wantLeave   int    // of the first alert
	}{
		{
			name:        "no start date: never a verdict",
			give:        give{start: nil, departure: 10, zone: "Europe/Paris", stages: []alerts.Stage{arriving(paris, 100)}},
			wantIndexes: []int{},
		},
		{
			name:        "arrives at 16:10 in December",
			give:        give{start: date(2025, 12, 21), departure: 8, zone: "Europe/Paris", stages: []alerts.Stage{arriving(paris, 100)}},
			wantIndexes: []int{},
		},
		{
			name:        "arrives at 18:10 in December",
			give:        give{start: date(2025, 12, 21), departure: 10, zone: "Europe/Paris", stages: []alerts.Stage{arriving(paris, 100)}},
			wantIndexes: []int{0},
			wantMessage: "Arrival about 18:10, after dusk at 17:33 (local time).",
			wantLeave:   9, // 17:33 − 8 h 10
		},
		{
			name:        "arrives at 18:10 in June",
			give:        give{start: date(2025, 6, 21), departure: 10, zone: "Europe/Paris", stages: []alerts.Stage{arriving(paris, 100)}},
			wantIndexes: []int{},
		},
		{
			name:        "200 km in June",
			give:        give{start: date(2025, 6, 21), departure: 8, zone: "Europe/Paris", stages: []alerts.Stage{arriving(paris, 200)}},
			wantIndexes: []int{0},
			wantMessage: "Arrival about 23:20, after dusk at 22:40 (local time).",
			wantLeave:   7, // 22:40 − 15 h 20
		},
		{
			name: "stage date is start date + index",
			give: give{start: date(2025, 12, 21), departure: 9, zone: "Europe/Paris",
				stages: []alerts.Stage{arriving(paris, 100), arriving(paris, 110)}},
			wantIndexes: []int{1},
			wantMessage: "Arrival about 17:50, after dusk at 17:34 (local time).",
			wantLeave:   8, // 17:34 − 8 h 50
		},
		{
			name: "rest days are skipped and still count as days",
			give: give{start: date(2025, 12, 21), departure: 10, zone: "Europe/Paris",
				stages: []alerts.Stage{arriving(paris, 100), rest(paris), arriving(paris, 100)}},
			wantIndexes: []int{0, 2},
			wantMessage: "Arrival about 18:10, after dusk at 17:33 (local time).",
			wantLeave:   9,
		},
		{
			name:        "departure floors at 5:00",
			give:        give{start: date(2025, 12, 21), departure: 8, zone: "Europe/Paris", stages: []alerts.Stage{arriving(paris, 300)}},
			wantIndexes: []int{0},
			wantMessage: "Arrival about 06:40 the next day, after dusk at 17:33 (local time).",
			wantLeave:   5,
		},
		{
			name:        "Oslo white night, home before the late dusk",
			give:        give{start: date(2025, 6, 21), departure: 20, zone: "Europe/Oslo", stages: []alerts.Stage{arriving(oslo, 60)}},
			wantIndexes: []int{},
		},
		{
			name:        "Oslo white night, after the late dusk",
			give:        give{start: date(2025, 6, 21), departure: 21, zone: "Europe/Oslo", stages: []alerts.Stage{arriving(oslo, 60)}},
			wantIndexes: []int{0},
			wantMessage: "Arrival about 01:20 the next day, after dusk at 00:28 the next day (local time).",
			wantLeave:   20, // 00:28 − 4 h 20
		},
		{
			name:        "Tromsø midnight sun: skipped",
			give:        give{start: date(2025, 6, 21), departure: 8, zone: "Europe/Oslo", stages: []alerts.Stage{arriving(tromso, 300)}},
			wantIndexes: []int{},
		},
		{
			name:        "Longyearbyen polar night: skipped",
			give:        give{start: date(2025, 12, 21), departure: 8, zone: "Arctic/Longyearbyen", stages: []alerts.Stage{arriving(longyearbyen, 300)}},
			wantIndexes: []int{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			trip := alerts.Trip{StartDate: tt.give.start, DepartureHour: tt.give.departure, AverageSpeed: 15}
			found, err := alerts.SunsetArrival(trip, tt.give.stages, zoneIn(t, tt.give.zone))
			require.NoError(t, err)
			assert.Equal(t, tt.wantIndexes, stageIndexes(found))
			for _, a := range found {
				assert.Equal(t, alerts.CodeSunsetArrivalAfterTwilight, a.Code)
				assert.Equal(t, alerts.SeverityWarning, a.Severity)
				end := tt.give.stages[a.StageIndex].End
				require.NotNil(t, a.Lat)
				assert.Equal(t, end.Lat, *a.Lat)
				require.NotNil(t, a.Action)
				assert.Equal(t, alerts.ActionAutoFix, a.Action.Kind)
			}
			if len(found) > 0 {
				assert.Equal(t, tt.wantMessage, found[0].Message)
				assert.Equal(t, tt.wantLeave, found[0].Action.Payload["departureHour"])
			}
		})
	}
}

// TestSunsetArrivalAtDusk holds the boundary: arriving as twilight ends is
// in time. The stage is sized from the computed dusk itself.
func TestSunsetArrivalAtDusk(t *testing.T) {
	t.Parallel()

	dusk, _ := alerts.CivilDusk(paris, 2025, time.December, 21)
	departure := time.Date(2025, time.December, 21, 13, 0, 0, 0, zoneIn(t, "Europe/Paris").loc)
	tests := []struct {
		name string
		give time.Duration // arrival relative to dusk
		want bool
	}{
		{name: "a second early", give: -time.Second, want: false},
		{name: "a minute late", give: time.Minute, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			// From 13:00, past noon: two short breaks and no lunch for a
			// ride of 4 to 6 hours.
			riding := dusk.Add(tt.give).Sub(departure) - 2*alerts.ShortBreak
			require.True(t, riding > 4*time.Hour && riding < 6*time.Hour)
			trip := alerts.Trip{StartDate: date(2025, 12, 21), DepartureHour: 13, AverageSpeed: 15}
			found, err := alerts.SunsetArrival(trip, []alerts.Stage{arriving(paris, riding.Hours()*15)}, zoneIn(t, "Europe/Paris"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, len(found) == 1)
		})
	}
}

// TestSunsetArrivalStartDate reads the start date as a UTC calendar day,
// whatever clock time or offset it carries.
func TestSunsetArrivalStartDate(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give time.Time
	}{
		{name: "midnight UTC", give: time.Date(2025, 12, 21, 0, 0, 0, 0, time.UTC)},
		{name: "late on the day, UTC", give: time.Date(2025, 12, 21, 23, 30, 0, 0, time.UTC)},
		{name: "offset that is still the 21st in UTC", give: time.Date(2025, 12, 22, 0, 30, 0, 0, time.FixedZone("", 2*3600))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			trip := alerts.Trip{StartDate: &tt.give, DepartureHour: 10, AverageSpeed: 15}
			found, err := alerts.SunsetArrival(trip, []alerts.Stage{arriving(paris, 100)}, zoneIn(t, "Europe/Paris"))
			require.NoError(t, err)
			require.Len(t, found, 1)
			assert.Contains(t, found[0].Message, "after dusk at 17:33", "21 December")
		})
	}
}

// TestSunsetArrivalZoneOfEachEnd checks that times are read in the zone of
// each point: departure at the start, twilight and arrival at the end.
func TestSunsetArrivalZoneOfEachEnd(t *testing.T) {
	t.Parallel()

	// From Paris to a point that a fake puts in London: 10:00 in Paris is
	// 09:00 in London, so the arrival reads an hour earlier than at home.
	london, err := time.LoadLocation("Europe/London")
	require.NoError(t, err)
	parisZone := zoneIn(t, "Europe/Paris").loc
	end := geo.Point{Lat: 48.86, Lon: 2.36} // Paris's sky, London's clock
	zones := zonesByPoint{paris: parisZone, end: london}

	trip := alerts.Trip{StartDate: date(2025, 12, 21), DepartureHour: 10, AverageSpeed: 15}
	stage := alerts.Stage{Geometry: []geo.Point{paris, end}, Distance: 100, Start: paris, End: end}
	found, err := alerts.SunsetArrival(trip, []alerts.Stage{stage}, zones)
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Equal(t, "Arrival about 17:10, after dusk at 16:33 (local time).", found[0].Message)
	assert.Equal(t, 9, found[0].Action.Payload["departureHour"], "the rider's hour, at the start")
}

// TestSunsetArrivalWithoutZone: a stage whose zone is unknown is not judged,
// the others are, and the caller learns the verdict is incomplete.
func TestSunsetArrivalWithoutZone(t *testing.T) {
	t.Parallel()

	nowhere := geo.Point{Lat: 48.0, Lon: 2.0}
	zones := zonesByPoint{paris: zoneIn(t, "Europe/Paris").loc}
	trip := alerts.Trip{StartDate: date(2025, 12, 21), DepartureHour: 10, AverageSpeed: 15}

	found, err := alerts.SunsetArrival(trip, []alerts.Stage{arriving(nowhere, 100), arriving(paris, 100)}, zones)
	require.Error(t, err)
	assert.True(t, errors.Is(err, alerts.ErrUnavailable))
	assert.Contains(t, err.Error(), "day 1")
	assert.Equal(t, []int{1}, stageIndexes(found))

	// Without a start date nothing is asked of the zones at all.
	trip.StartDate = nil
	found, err = alerts.SunsetArrival(trip, []alerts.Stage{arriving(nowhere, 100)}, zones)
	assert.NoError(t, err)
	assert.Empty(t, found)
}

// zonesByPoint is a Zones fake with a zone for each known point.
type zonesByPoint map[geo.Point]*time.Location

func (z zonesByPoint) Zone(p geo.Point) (*time.Location, error) {
	if loc, ok := z[p]; ok {
		return loc, nil
	}
	return nil, alerts.ErrNoZone
}
