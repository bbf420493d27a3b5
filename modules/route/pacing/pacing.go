// Package pacing cuts a route into days (pipeline.md §4, the implemented
// form): each day gets a target distance that shrinks with fatigue and with
// the route's climbing, and the route is cut where the day reaches it.
package pacing

import (
	"context"
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
	// Start and End are decimated points, or points interpolated on the
	// decimated line where a day's target fell between two of them; a
	// stage's End is the next one's Start.
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
//
// When the day count comes from the cap (params.Days is zero, so days is
// ceil(distance / MaxDistance)) and the cap holds some days back, leaving
// distance over, the base is raised until the targets add up to distance
// again: the days under the cap take the surplus, as far as they have room,
// instead of the last day taking all of it, so no day is planned over the
// cap. With dates the last day absorbs the surplus, as pipeline.md's worked
// example 30 has it.
func Targets(distance, ascent float64, days int, params Params) []float64 {
	params = params.withDefaults()
	if days < 1 {
		return nil
	}
	f := params.Fatigue
	penalty := ascent / params.ElevationPenalty / float64(days)
	powers := make([]float64, days) // fⁿ
	sum, fn, least := 0.0, 1.0, 1.0
	for n := range powers {
		powers[n] = fn
		sum += fn
		least = math.Min(least, fn)
		fn *= f
	}
	target := func(base float64, n int) float64 {
		t := math.Max(base*powers[n]-penalty, MinTarget)
		return math.Min(t, params.MaxDistance)
	}
	total := func(base float64) float64 {
		s := 0.0
		for n := range powers {
			s += target(base, n)
		}
		return s
	}

	base := (distance + penalty*float64(days)) / sum
	if params.Days == 0 && total(base) < distance {
		// Only the cap removes distance. Past allCapped every day is at the
		// cap; in between the total grows continuously with the base.
		allCapped := (params.MaxDistance + penalty) / least
		if total(allCapped) <= distance {
			base = allCapped
		} else {
			lo, hi := base, allCapped
			for range 200 {
				mid := (lo + hi) / 2
				if mid <= lo || mid >= hi {
					break
				}
				if total(mid) < distance {
					lo = mid
				} else {
					hi = mid
				}
			}
			base = hi // the targets reach distance: the last day is within its own
		}
	}

	targets := make([]float64, days)
	for n := range targets {
		targets[n] = target(base, n)
	}
	return targets
}

// snap is how far, in metres, a decimated point may lie past a day's target
// and still end the day: closer than this, a point is not interpolated.
const snap = 0.001

// margin is how far past its target an interpolated cut is placed, in
// metres: enough to stay at or past the target through rounding.
const margin = 1e-6

// Plan cuts route into stages. Every day but the last runs along the
// decimated line from its start to its target distance: it ends on the
// decimated point lying there, or on a point interpolated on the decimated
// segment that crosses it (geo.Toward), so a day is as long as its target
// however far apart the decimated points are (a straight road keeps only
// its ends). Its end starts the next day. The raw points are cut on their
// own, at the first point reaching the target, for the climbing; the stage
// that reaches the end of the decimated route takes the remaining raw
// points. The last day takes everything left. When the route runs out
// first, fewer stages than days are returned.
//
// Plan is deterministic. With fewer than two stages it returns them together
// with ErrMinStages, so the caller can store them and keep the trip a draft.
func Plan(route Route, params Params) ([]Stage, error) {
	return PlanContext(context.Background(), route, params)
}

// PlanContext is Plan that stops, returning ctx's error and no stages, once
// ctx is done.
func PlanContext(ctx context.Context, route Route, params Params) ([]Stage, error) {
	params = params.withDefaults()
	dec, raw := route.Decimated, route.Raw
	if len(dec) < 2 {
		return nil, ErrMinStages
	}
	days := Days(route.Distance, params)
	targets := Targets(route.Distance, route.Ascent, days, params)

	line := walker{points: dec, start: dec[0], next: 1}
	rawLast := max(len(raw)-1, 0)
	stages := make([]Stage, 0, days)
	rawFrom := 0
	for day, target := range targets {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var points []geo.Point
		atEnd := true
		if day < days-1 {
			points, atEnd = line.cut(target * 1000)
		} else {
			points = line.rest()
		}
		if len(points) < 2 {
			continue // only the point the last day ended on: nothing to ride
		}
		rawTo := rawLast
		if !atEnd {
			rawTo = cut(raw, rawFrom, target)
		}
		var rawStage []geo.Point
		if len(raw) > 0 {
			rawStage = raw[rawFrom : rawTo+1]
		}
		stage, err := newStage(ctx, points, rawStage)
		if err != nil {
			return nil, err
		}
		stages = append(stages, stage)
		rawFrom = rawTo
	}
	if len(stages) < 2 {
		return stages, ErrMinStages
	}
	return stages, nil
}

// walker goes along the decimated line a day at a time. The day starts at
// start, an original point or one a cut interpolated; points[next] is the
// first original point after it.
type walker struct {
	points []geo.Point
	start  geo.Point
	next   int
}

// cut returns the points of a day of goal metres from the walker's position,
// and moves to its end; atEnd tells that the line ended first (or exactly
// there).
func (w *walker) cut(goal float64) (day []geo.Point, atEnd bool) {
	day = []geo.Point{w.start}
	covered := 0.0
	prev := geo.Prepare(w.start)
	for i := w.next; i < len(w.points); i++ {
		p := w.points[i]
		next := geo.Prepare(p)
		// Distances are added in the order geo.Length adds them, so the
		// stage measures at least its goal exactly when this says it does.
		step := prev.Distance(next)
		if covered+step >= goal {
			if covered+step-goal <= snap {
				day = append(day, p)
				w.start, w.next = p, i+1
				return day, i == len(w.points)-1
			}
			end := geo.Toward(day[len(day)-1], p, goal-covered+margin)
			day = append(day, end)
			w.start, w.next = end, i
			return day, false
		}
		covered += step
		day = append(day, p)
		prev = next
	}
	w.next = len(w.points)
	return day, true
}

// rest returns the points from the walker's position to the end of the line.
func (w *walker) rest() []geo.Point {
	day := append([]geo.Point{w.start}, w.points[w.next:]...)
	w.next = len(w.points)
	return day
}

// cut is the index of the first point from points[from] on whose distance
// along the route from points[from] reaches target km, or the last index
// when the route ends first.
func cut(points []geo.Point, from int, target float64) int {
	if from >= len(points) {
		return max(len(points)-1, 0)
	}
	goal := target * 1000
	covered := 0.0
	prev := geo.Prepare(points[from])
	for i := from + 1; i < len(points); i++ {
		next := geo.Prepare(points[i])
		covered += prev.Distance(next)
		if covered >= goal {
			return i
		}
		prev = next
	}
	return max(len(points)-1, 0)
}

func newStage(ctx context.Context, dec, raw []geo.Point) (Stage, error) {
	gain, loss := gpx.Ascent(raw)
	geometry, err := decimate.SimplifyContext(ctx, dec, decimate.Tolerance)
	if err != nil {
		return Stage{}, err
	}
	return Stage{
		Distance: geo.Length(dec) / 1000,
		Ascent:   gain,
		Descent:  loss,
		Geometry: geometry,
		Start:    dec[0],
		End:      dec[len(dec)-1],
	}, nil
}
