package alerts

import (
	"time"

	"cairn.dev/cairn/modules/route/geo"
)

// Stage is what the rules read of one day of a trip.
type Stage struct {
	// Geometry is the decimated line of the stage, with elevations; a rest
	// day holds a single point.
	Geometry   []geo.Point
	Distance   float64 // km
	Ascent     float64 // m, D+
	Descent    float64 // m, D−
	IsRestDay  bool    // distance 0, Start = End = the previous stage's end
	Start, End geo.Point
}

// Trip is what the rules read of the trip's settings.
type Trip struct {
	// StartDate is the first day, a calendar day read in UTC; nil when the
	// rider has not set one, and then no rule that needs a calendar speaks.
	StartDate     *time.Time
	DepartureHour int     // the rider's local hour, 0..23
	AverageSpeed  float64 // km/h on the flat
	EbikeMode     bool
}
