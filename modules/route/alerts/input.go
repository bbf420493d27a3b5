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

// Found is a place found along a stage, as the pipeline read it: its
// name and tags are data (never alert text beyond the name a suggestion
// names), Off how far from the stage's line it lies and Along where along
// the line (metres from the start) it is nearest.
type Found struct {
	Name       string
	Category   string
	Point      geo.Point
	Off, Along float64
	Tags       map[string]string
	OSMType    string
	OSMID      int64
}

// Ridden is a mapped way a stage rides along, with the tags the surface
// and traffic rules read and how far the stage rides it.
type Ridden struct {
	WayID     int64
	Tags      map[string]string
	Length    float64       // metres ridden on it
	Stretches [][]geo.Point // where, in order
}

// DayWeather is the weather the rules read of one stage.
type DayWeather struct {
	WindSpeed  float64 // km/h
	Relative   string  // headwind, tailwind, crosswind
	RainChance float64 // %
	Comfort    int     // 0..100
}
