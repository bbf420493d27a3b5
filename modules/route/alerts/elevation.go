package alerts

import (
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/words"
)

// MaxAscent is the D+ in metres above which a stage is a big climb.
const MaxAscent = 1200.0

// ElevationGain reports every riding stage climbing more than MaxAscent
// (elevation_gain, warning; exactly 1 200 m is not reported). Its auto_fix
// splits the stage at half its distance; the payload names the stage, the
// kilometre and the point.
func ElevationGain(stages []Stage) []Alert {
	var out []Alert
	for i, s := range stages {
		if s.IsRestDay || s.Ascent <= MaxAscent {
			continue
		}
		a := alert(CodeElevationGain, SeverityWarning, i, "alert.elevation_gain", words.Args{"day": i + 1, "ascent": s.Ascent})
		payload := map[string]any{"stageIndex": i, "atKm": s.Distance / 2}
		if p, ok := along(s.Geometry, 0.5); ok {
			payload["lat"], payload["lon"] = p.Lat, p.Lon
		}
		a.Action = act(ActionAutoFix, "action.split_day", nil, payload)
		out = append(out, a)
	}
	return out
}

// Steep gradient thresholds: a climb counts as steep when each of its
// consecutive segments rises at least SteepGrade (8 %) and they add up to at
// least SteepLength metres.
const (
	SteepGrade  = 0.08
	SteepLength = 500.0
)

// gradeTolerance absorbs the rounding of elevations that were themselves
// computed as grade × distance, so that a segment at exactly 8 % counts.
const gradeTolerance = 1e-9

// SteepGradient reports each steep climb of each riding stage
// (steep_gradient, warning): one alert per run of consecutive uphill
// segments of the stage's geometry, each at least 8 %, totalling at least
// 500 m, with the run's mean gradient and length. Descents are not runs: the
// rule warns about what must be ridden up. A segment of zero horizontal
// length has no gradient and neither breaks nor extends a run. The alert
// sits at the foot of the climb; its action navigates there with the run as
// its segment.
func SteepGradient(stages []Stage) []Alert {
	var out []Alert
	for i, s := range stages {
		if s.IsRestDay {
			continue
		}
		for _, r := range steepRuns(s.Geometry) {
			a := alert(CodeSteepGradient, SeverityWarning, i, "alert.steep_gradient",
				words.Args{"day": i + 1, "km": r.length / 1000, "grade": 100 * r.rise / r.length})
			a.Lat, a.Lon = coords(r.points[0])
			a.Action = navigate("action.show_climb", r.points[0], r.points)
			out = append(out, a)
		}
	}
	return out
}

// run is a stretch of consecutive steep segments.
type run struct {
	points       []geo.Point
	length, rise float64 // metres
}

func steepRuns(line []geo.Point) []run {
	var runs []run
	var cur run
	flush := func() {
		if cur.length >= SteepLength {
			runs = append(runs, cur)
		}
		cur = run{}
	}
	for k := 1; k < len(line); k++ {
		a, b := line[k-1], line[k]
		d := geo.Distance(a, b)
		if d == 0 {
			continue
		}
		rise := b.Ele - a.Ele
		if rise/d < SteepGrade-gradeTolerance {
			flush()
			continue
		}
		if len(cur.points) == 0 {
			cur.points = append(cur.points, a)
		}
		cur.points = append(cur.points, b)
		cur.length += d
		cur.rise += rise
	}
	flush()
	return runs
}
