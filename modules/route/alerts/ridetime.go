package alerts

import (
	"math"
	"time"
)

// Rider time model (pipeline.md §7).
const (
	MinSpeed   = 5.0              // km/h: the effective speed never drops below it
	ShortBreak = 10 * time.Minute // per full RidingPerBreak of riding
	// RidingPerBreak is the riding time that earns a short break.
	RidingPerBreak = 2 * time.Hour
	LunchBreak     = time.Hour // when noon falls strictly inside the ride
)

// EffectiveSpeed is the speed in km/h a rider keeps on a stage climbing
// ascent metres: the average speed less 2 km/h per 500 m of D+, at least
// MinSpeed.
func EffectiveSpeed(averageSpeed, ascent float64) float64 {
	return max(MinSpeed, averageSpeed-2*(ascent/500))
}

// RideTime is how long a stage takes from departure to arrival: riding at
// EffectiveSpeed, plus a ShortBreak per full two hours of riding, plus the
// LunchBreak when noon falls strictly between the departure hour and the end
// of riding and short breaks (a ride that ends, or starts, exactly at noon
// takes no lunch). A rest day or an empty stage takes no time.
func RideTime(trip Trip, s Stage) time.Duration {
	if s.IsRestDay || s.Distance <= 0 {
		return 0
	}
	riding := hours(s.Distance / EffectiveSpeed(trip.AverageSpeed, s.Ascent))
	breaks := time.Duration(riding/RidingPerBreak) * ShortBreak
	total := riding + breaks
	departure := time.Duration(trip.DepartureHour) * time.Hour
	if noon := 12 * time.Hour; departure < noon && noon < departure+total {
		total += LunchBreak
	}
	return total
}

// hours converts a float number of hours to a Duration, rounded to the
// nanosecond so that equal inputs always give equal durations.
func hours(h float64) time.Duration {
	return time.Duration(math.Round(h * float64(time.Hour)))
}
