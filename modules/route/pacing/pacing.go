// Package pacing cuts a route into days (pipeline.md §4, the implemented
// form): each day gets a target distance that shrinks with fatigue and with
// the route's climbing, and the route is cut at the first decimated point
// reaching it.
package pacing

import (
	"math"
	"time"

	"cairn.dev/cairn/modules/route/decimate"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
)

// Defaults of the trip's pacing settings (model.md), used for zero values.
const (
	DefaultFatigue          = 0.9  // each day's base is this share of the day before
	DefaultElevationPenalty = 50.0 // metres of climbing worth one kilometre
	DefaultMaxDistance      = 80.0 // km a day at most
)

// MinTarget is the floor, in km, of every day's target before the cap: a
// day shorter than this is not worth planning. Only the last stage, or one
// where the route ends, can be shorter.
const MinTarget = 30.0

// Params are a trip's pacing settings. Zero values take the defaults, and so
// do values the formulas cannot use (a fatigue, penalty or cap that is not
// positive); the 0.5–1.0 and 30–300 ranges are the callers' to validate.
type Params struct {
	// Days is N, from the trip dates (see DayCount). Zero means
	// ceil(distance / MaxDistance), at least 1.
	Days int
	// Fatigue is f: day n's base distance is B·fⁿ. Default 0.9.
	Fatigue float64
	// ElevationPenalty is p, metres of climbing that cost one km. Default 50.
	ElevationPenalty float64
	// MaxDistance is M, the cap on every day's target in km. Default 80.
	MaxDistance float64
}

func (p Params) withDefaults() Params {
	if !(p.Fatigue > 0) {
		p.Fatigue = DefaultFatigue
	}
	if !(p.ElevationPenalty > 0) {
		p.ElevationPenalty = DefaultElevationPenalty
	}
	if !(p.MaxDistance > 0) {
		p.MaxDistance = DefaultMaxDistance
	}
	return p
}

// Route is what pacing needs of an imported route.
type Route struct {
	// Decimated points (decimate.Simplify at decimate.Tolerance) carry the
	// cuts and the stage geometry.
	Decimated []geo.Point
	// Raw points, as recorded, carry the stages' climbing.
	Raw []geo.Point
	// Distance is D in km, geo.Length of Raw.
	Distance float64
	// Ascent is E in metres, the climbing of the whole route (gpx.Ascent of Raw).
	Ascent float64
}

// Stage is one day of riding.
type Stage struct {
	// Distance in km along the stage's decimated points.
	Distance float64
	// Ascent and Descent in metres, by gpx.Ascent over the stage's raw points.
	Ascent, Descent float64
	// Geometry is the stage's decimated points decimated again at
	// decimate.Tolerance: its ends are Start and End.
	Geometry []geo.Point
	// Start and End are decimated points; a stage's End is the next one's Start.
	Start, End geo.Point
}

// DayCount is N for a dated trip: end − start + 1 in calendar days, judged
// on the dates as written (each in its own location), at least 1.
func DayCount(start, end time.Time) int {
	day := func(t time.Time) time.Time {
		y, m, d := t.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	n := int(day(end).Sub(day(start)).Hours()/24) + 1
	return max(n, 1)
}

// Days is N: params.Days when set, else ceil(distance / MaxDistance) with
// distance in km, at least 1.
func Days(distance float64, params Params) int {
	if params.Days > 0 {
		return params.Days
	}
	params = params.withDefaults()
	n := int(math.Ceil(distance / params.MaxDistance))
	return max(n, 1)
}

// Targets are the days' target distances in km for a route of distance km
// climbing ascent metres over days days: with the per-day penalty
// P = (ascent / ElevationPenalty) / days and S = Σ fⁱ for i < days, the base
// is B = (distance + P·days) / S and day n's target B·fⁿ − P, raised to
// MinTarget and then capped at MaxDistance. Before the floor and the cap the
// targets add up to distance exactly.
func Targets(distance, ascent float64, days int, params Params) []float64 {
	params = params.withDefaults()
	if days < 1 {
		return nil
	}
	f := params.Fatigue
	penalty := ascent / params.ElevationPenalty / float64(days)
	sum, fn := 0.0, 1.0
	for range days {
		sum += fn
		fn *= f
	}
	base := (distance + penalty*float64(days)) / sum

	targets := make([]float64, days)
	fn = 1
	for n := range targets {
		t := math.Max(base*fn-penalty, MinTarget)
		targets[n] = math.Min(t, params.MaxDistance)
		fn *= f
	}
	return targets
}

// Plan cuts route into stages. Every day but the last walks the decimated
// points from its start and ends at the first point whose distance from that
// start reaches the day's target; that point also starts the next day. The
// raw points are cut the same way, on their own, for the climbing; the stage
// that reaches the end of the decimated route takes the remaining raw points.
// The last day takes every remaining point. When the route runs out first,
// fewer stages than days are returned; a cut that would leave a stage fewer
// than two points gives it none, merging it into the next.
//
// Plan is deterministic. With fewer than two stages it returns them together
// with ErrMinStages, so the caller can store them and keep the trip a draft.
func Plan(route Route, params Params) ([]Stage, error) {
	params = params.withDefaults()
	dec, raw := route.Decimated, route.Raw
	if len(dec) < 2 {
		return nil, ErrMinStages
	}
	days := Days(route.Distance, params)
	targets := Targets(route.Distance, route.Ascent, days, params)

	last, rawLast := len(dec)-1, max(len(raw)-1, 0)
	stages := make([]Stage, 0, days)
	from, rawFrom := 0, 0
	for day, target := range targets {
		to, rawTo := last, rawLast
		if day < days-1 {
			to = cut(dec, from, target)
			rawTo = cut(raw, rawFrom, target)
		}
		if to == last {
			rawTo = rawLast
		}
		if to-from < 1 {
			// One point, already shared with its neighbour: nothing to ride.
			continue
		}
		var rawStage []geo.Point
		if len(raw) > 0 {
			rawStage = raw[rawFrom : rawTo+1]
		}
		stages = append(stages, newStage(dec[from:to+1], rawStage))
		from, rawFrom = to, rawTo
	}
	if len(stages) < 2 {
		return stages, ErrMinStages
	}
	return stages, nil
}

// cut is the index of the first point from points[from] on whose distance
// along the route from points[from] reaches target km, or the last index
// when the route ends first.
func cut(points []geo.Point, from int, target float64) int {
	goal := target * 1000
	covered := 0.0
	for i := from; i < len(points); i++ {
		if i > from {
			covered += geo.Distance(points[i-1], points[i])
		}
		if covered >= goal {
			return i
		}
	}
	return max(len(points)-1, 0)
}

func newStage(dec, raw []geo.Point) Stage {
	gain, loss := gpx.Ascent(raw)
	return Stage{
		Distance: geo.Length(dec) / 1000,
		Ascent:   gain,
		Descent:  loss,
		Geometry: decimate.Simplify(dec, decimate.Tolerance),
		Start:    dec[0],
		End:      dec[len(dec)-1],
	}
}
