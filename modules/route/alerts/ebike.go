package alerts

import (
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/words"
)

// E-bike range model (pipeline.md §8): EbikeFlatRange km on the flat, less
// one km per EbikeAscentPerKm metres of D+, never below zero.
const (
	EbikeFlatRange   = 80.0
	EbikeAscentPerKm = 25.0
	// ChargerRadius is how far from the point where the battery runs out, in
	// metres, a charger still counts (the corridor half-width of §7).
	ChargerRadius = 2000.0
)

// EbikeRange is the distance in km an e-bike battery lasts on a stage
// climbing ascent metres: max(0, 80 − D+/25).
func EbikeRange(ascent float64) float64 {
	return max(0, EbikeFlatRange-ascent/EbikeAscentPerKm)
}

// EbikeRangeExceeded reports, when the trip is ridden on an e-bike, every
// riding stage longer than its EbikeRange (ebike_range_exceeded, warning);
// a stage exactly at its range is not reported. The alert sits where the
// battery is expected to run out.
//
// chargers are the charging points the pipeline found along the trip (a
// places lookup, see Places); the nearest within ChargerRadius of that point
// becomes a navigate action. Without one, or when the lookup was not
// available (pass nil), the action is the auto_fix "shorten this day to its
// range", with the range in its payload.
func EbikeRangeExceeded(trip Trip, stages []Stage, chargers []geo.Point) []Alert {
	if !trip.EbikeMode {
		return nil
	}
	var out []Alert
	for i, s := range stages {
		if s.IsRestDay {
			continue
		}
		limit := EbikeRange(s.Ascent)
		if s.Distance <= limit {
			continue
		}
		a := alert(CodeEbikeRangeExceeded, SeverityWarning, i, "alert.ebike_range_exceeded",
			words.Args{"day": i + 1, "km": s.Distance, "ascent": s.Ascent, "range": limit})
		drained, ok := along(s.Geometry, limit/s.Distance)
		if ok {
			a.Lat, a.Lon = coords(drained)
		}
		if c, found := nearest(drained, chargers, ChargerRadius); ok && found {
			a.Action = navigate("action.nearest_charger", c)
		} else {
			a.Action = act(ActionAutoFix, "action.shorten_day", words.Args{"km": limit},
				map[string]any{"stageIndex": i, "maxDistanceKm": limit})
		}
		out = append(out, a)
	}
	return out
}

// nearest is the point of candidates closest to p within radius metres; the
// first of equally close ones, so the answer does not depend on anything but
// the order the caller gave.
func nearest(p geo.Point, candidates []geo.Point, radius float64) (geo.Point, bool) {
	best, bestD, found := geo.Point{}, radius, false
	for _, c := range candidates {
		if d := geo.Haversine(p, c); d < bestD || (!found && d == bestD) {
			best, bestD, found = c, d, true
		}
	}
	return best, found
}
