package alerts_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"cairn.dev/cairn/modules/route/alerts"
)

func TestEffectiveSpeed(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name          string
		speed, ascent float64
		want          float64
	}{
		{name: "flat", speed: 15, ascent: 0, want: 15},
		{name: "500 m", speed: 15, ascent: 500, want: 13},
		{name: "down to the floor", speed: 15, ascent: 2500, want: 5},
		{name: "below the floor", speed: 15, ascent: 5000, want: 5},
		{name: "no speed set", speed: 0, ascent: 0, want: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, alerts.EffectiveSpeed(tt.speed, tt.ascent))
		})
	}
}

// TestRideTime holds the rider time of pipeline.md §7 to hand-worked values.
func TestRideTime(t *testing.T) {
	t.Parallel()

	type give struct {
		km, ascent, speed float64
		departure         int
	}
	tests := []struct {
		name string
		give give
		want time.Duration
	}{
		// 6 h 40 riding, 3 short breaks, lunch.
		{name: "100 km from 8:00", give: give{100, 0, 15, 8}, want: 6*time.Hour + 40*time.Minute + 30*time.Minute + time.Hour},
		// Noon is the departure, not inside the ride.
		{name: "100 km from noon", give: give{100, 0, 15, 12}, want: 6*time.Hour + 40*time.Minute + 30*time.Minute},
		// Exactly 2 h of riding earns one break; back at 10:10.
		{name: "30 km from 8:00", give: give{30, 0, 15, 8}, want: 2*time.Hour + 10*time.Minute},
		// Arrives at noon exactly: no lunch.
		{name: "15 km from 11:00", give: give{15, 0, 15, 11}, want: time.Hour},
		// 1 h 50 of riding from 10:00 ends at 11:50: no break, no lunch.
		{name: "27.5 km from 10:00", give: give{27.5, 0, 15, 10}, want: time.Hour + 50*time.Minute},
		// 2 h 10 with its break ends at 12:10: lunch.
		{name: "30 km from 10:00", give: give{30, 0, 15, 10}, want: 3*time.Hour + 10*time.Minute},
		// 13 km/h: 5 h riding, 2 breaks, lunch.
		{name: "65 km, 500 m D+", give: give{65, 500, 15, 8}, want: 5*time.Hour + 20*time.Minute + time.Hour},
		{name: "afternoon ride", give: give{45, 0, 15, 13}, want: 3*time.Hour + 10*time.Minute},
		{name: "nothing to ride", give: give{0, 0, 15, 8}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			trip := alerts.Trip{AverageSpeed: tt.give.speed, DepartureHour: tt.give.departure}
			stage := alerts.Stage{Distance: tt.give.km, Ascent: tt.give.ascent}
			assert.Equal(t, tt.want, alerts.RideTime(trip, stage))
		})
	}
}

func TestRideTimeRestDay(t *testing.T) {
	t.Parallel()

	stage := rest(base)
	stage.Distance = 10 // a rest day takes no time whatever it says
	assert.Zero(t, alerts.RideTime(alerts.Trip{AverageSpeed: 15}, stage))
}
