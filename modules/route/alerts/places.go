package alerts

import (
	"math"
	"slices"
	"time"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/openinghours"
	"cairn.dev/cairn/modules/route/words"
)

// Distances of the place rules (pipeline.md §8), in metres or km.
const (
	ResupplyMinStageKm = 40.0   // resupply_none_on_stage: shorter days are not told
	WaterGapKm         = 30.0   // water_point_gap
	BikeShopRadius     = 2000.0 // bike_shop_none_nearby, around the middle of the day
	BikeShopMinStages  = 5      // a trip of more stages is told
	StationRadius      = 10_000.0
	HealthRadius       = 15_000.0
	CulturalRadius     = 500.0
	MaxCultural        = 3
	FordRadius         = 25.0
	FerryRadius        = 100.0
	WetRainChance      = 50.0
)

// Passage is when a rider passes a point along a stage: departure at the
// trip's hour on date, then riding and breaks spread evenly over the day
// (pipeline.md §7). loc is the zone of the stage's start.
func Passage(trip Trip, s Stage, date time.Time, loc *time.Location, along float64) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	y, m, d := date.Date()
	start := time.Date(y, m, d, trip.DepartureHour, 0, 0, 0, loc)
	if s.Distance <= 0 {
		return start
	}
	f := max(0, min(1, along/(s.Distance*1000)))
	return start.Add(time.Duration(f * float64(RideTime(trip, s))))
}

// ResupplyNone tells a riding day of 40 km or more with nowhere to buy
// food within the corridor (resupply_none_on_stage, nudge).
func ResupplyNone(i int, s Stage, food []Found) []Alert {
	if s.IsRestDay || s.Distance < ResupplyMinStageKm || len(food) > 0 {
		return nil
	}
	return []Alert{alert(CodeResupplyNoneOnStage, SeverityNudge, i, "alert.resupply_none_on_stage", words.Args{"day": i + 1, "km": s.Distance})}
}

// ResupplyClosed tells a riding day whose every place to buy food is
// known closed when the rider passes it (resupply_closed_at_passage,
// warning). A place whose hours are missing or unreadable is unknown, and
// one unknown place is enough to claim nothing; without a date nothing is
// claimed either.
func ResupplyClosed(i int, trip Trip, s Stage, date *time.Time, loc *time.Location, food []Found) []Alert {
	if s.IsRestDay || date == nil || len(food) == 0 {
		return nil
	}
	for _, f := range food {
		h, ok := openinghours.Parse(f.Tags["opening_hours"])
		if !ok || h.At(Passage(trip, s, *date, loc, f.Along)) != openinghours.Closed {
			return nil
		}
	}
	a := alert(CodeResupplyClosedAtPassage, SeverityWarning, i, "alert.resupply_closed_at_passage", words.Args{"day": i + 1, "count": len(food)})
	a.Lat, a.Lon = coords(food[0].Point)
	return []Alert{a}
}

// WaterGap tells the longest stretch of a riding day over 30 km without
// drinking water: start to the first water point, between two, the last
// to the end, or the whole day when it has none (water_point_gap, nudge).
// Its action goes to the water point nearest the middle of the stretch,
// when one is known.
func WaterGap(i int, s Stage, water []Found) []Alert {
	if s.IsRestDay {
		return nil
	}
	km := s.Distance
	marks := []float64{0}
	for _, w := range water {
		marks = append(marks, w.Along/1000)
	}
	marks = append(marks, km)
	slices.Sort(marks)
	from, to := 0.0, 0.0
	for k := 1; k < len(marks); k++ {
		if marks[k]-marks[k-1] > to-from {
			from, to = marks[k-1], marks[k]
		}
	}
	if to-from <= WaterGapKm {
		return nil
	}
	a := alert(CodeWaterPointGap, SeverityNudge, i, "alert.water_point_gap", words.Args{"day": i + 1, "km": to - from, "from": from, "to": to})
	if len(water) > 0 {
		mid := (from + to) / 2 * 1000
		best := water[0]
		for _, w := range water {
			if math.Abs(w.Along-mid) < math.Abs(best.Along-mid) {
				best = w
			}
		}
		a.Lat, a.Lon = coords(best.Point)
		a.Action = navigate("action.nearest_water", best.Point)
	}
	return []Alert{a}
}

// Repairs reports whether a bike shop repairs: a repair station, or a shop
// that does not say it does not.
func Repairs(f Found) bool {
	return f.Category != "bicycle" || f.Tags["service:bicycle:repair"] != "no"
}

// nearestTo is the place of places nearest p, and its distance (metres).
func nearestTo(p geo.Point, places []Found) (Found, float64, bool) {
	best, bestD, ok := Found{}, math.Inf(1), false
	for _, f := range places {
		if d := geo.Haversine(p, f.Point); d < bestD {
			best, bestD, ok = f, d, true
		}
	}
	return best, bestD, ok
}

// Middle is the point halfway along a stage's line.
func Middle(s Stage) geo.Point {
	p, ok := along(s.Geometry, 0.5)
	if !ok {
		return s.Start
	}
	return p
}

// BikeShopNone tells, on a trip of more than five stages, a riding day
// with no repair-capable bike shop within 2 km of its middle
// (bike_shop_none_nearby, nudge); shops are the ones found around the
// day, and its action goes to the nearest of them.
func BikeShopNone(i int, stages []Stage, shops []Found) []Alert {
	s := stages[i]
	if len(stages) <= BikeShopMinStages || s.IsRestDay {
		return nil
	}
	var able []Found
	for _, f := range shops {
		if Repairs(f) {
			able = append(able, f)
		}
	}
	return noneNear(i, Middle(s), able, BikeShopRadius, CodeBikeShopNoneNearby, "alert.bike_shop_none_nearby", "action.nearest_shop")
}

// noneNear is the nudge of a day with none of places within radius of at:
// nothing when the nearest is near enough, else the alert, its action
// going to the nearest one found, if any.
func noneNear(i int, at geo.Point, places []Found, radius float64, code Code, key, action string) []Alert {
	best, d, ok := nearestTo(at, places)
	if ok && d <= radius {
		return nil
	}
	a := alert(code, SeverityNudge, i, key, words.Args{"day": i + 1})
	if ok {
		a.Action = navigate(action, best.Point)
	}
	return []Alert{a}
}

// StationNone tells a riding day with no railway station within 10 km of
// its start or its end (railway_station_none_nearby, nudge).
func StationNone(i int, s Stage, stations []Found) []Alert {
	if s.IsRestDay {
		return nil
	}
	b1, d1, ok1 := nearestTo(s.Start, stations)
	b2, d2, ok2 := nearestTo(s.End, stations)
	if (ok1 && d1 <= StationRadius) || (ok2 && d2 <= StationRadius) {
		return nil
	}
	a := alert(CodeRailwayStationNoneNearby, SeverityNudge, i, "alert.railway_station_none_nearby", words.Args{"day": i + 1})
	switch {
	case ok2 && (!ok1 || d2 <= d1):
		a.Action = navigate("action.nearest_station", b2.Point)
	case ok1:
		a.Action = navigate("action.nearest_station", b1.Point)
	}
	return []Alert{a}
}

// HealthNone tells a day, rest days included, with no pharmacy, hospital
// or clinic within 15 km of its middle (health_service_none_nearby, nudge).
func HealthNone(i int, s Stage, health []Found) []Alert {
	return noneNear(i, Middle(s), health, HealthRadius, CodeHealthServiceNoneNearby, "alert.health_service_none_nearby", "action.nearest_health")
}

// Cultural suggests up to three places to see within 500 m of a riding
// day's line, nearest the line first (cultural_poi_suggestion, nudge),
// each with the place it is about.
func Cultural(i int, s Stage, places []Found) []Alert {
	if s.IsRestDay {
		return nil
	}
	var near []Found
	for _, f := range places {
		if f.Off <= CulturalRadius && f.Name != "" {
			near = append(near, f)
		}
	}
	slices.SortStableFunc(near, func(a, b Found) int { return cmpF(a.Off, b.Off) })
	var out []Alert
	for _, f := range near[:min(MaxCultural, len(near))] {
		a := alert(CodeCulturalPOISuggestion, SeverityNudge, i, "alert.cultural_poi_suggestion",
			words.Args{"day": i + 1, "name": f.Name, "kind": words.T("place."+f.Category, nil), "metres": f.Off})
		a.Action = navigate("action.go_there", f.Point) // the place (poiLat, poiLon) is where it applies
		p := f
		a.Place = &p
		out = append(out, a)
	}
	return out
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Fords tells the fords within 25 m of a riding day's line, one alert for
// the day: wet (ford_crossing_wet, warning) when the day's chance of rain
// is 50 % or more, else dry (ford_crossing_dry, nudge), also without a
// forecast, when it says so. It sits at the first ford and its action
// draws each of them.
func Fords(i int, s Stage, fords []Found, w *DayWeather) []Alert {
	if s.IsRestDay {
		return nil
	}
	var on []geo.Point
	for _, f := range fords {
		if f.Off <= FordRadius {
			on = append(on, f.Point)
		}
	}
	if len(on) == 0 {
		return nil
	}
	args := words.Args{"day": i + 1, "count": len(on)}
	var a Alert
	switch {
	case w == nil:
		a = alert(CodeFordCrossingDry, SeverityNudge, i, "alert.ford_crossing_dry.unknown", args)
	case w.RainChance >= WetRainChance:
		args["rain"] = w.RainChance
		a = alert(CodeFordCrossingWet, SeverityWarning, i, "alert.ford_crossing_wet", args)
	default:
		args["rain"] = w.RainChance
		a = alert(CodeFordCrossingDry, SeverityNudge, i, "alert.ford_crossing_dry", args)
	}
	a.Lat, a.Lon = coords(on[0])
	var marks [][]geo.Point
	for _, p := range on[1:min(maxStretches, len(on))] { // the first is where the action goes
		marks = append(marks, []geo.Point{p})
	}
	a.Action = navigate("action.show_ford", on[0], marks...)
	return []Alert{a}
}

// Ferry is a ferry route near a stage: its way, its name and the point of
// it nearest the stage's line.
type Ferry struct {
	WayID int64
	Name  string
	At    geo.Point
}

// Ferries tells each ferry route within 100 m of a riding day's line, once
// per ferry over the trip (seen holds the ferries told already)
// (ferry_crossing, warning).
func Ferries(i int, s Stage, ferries []Ferry, seen map[int64]bool) []Alert {
	if s.IsRestDay {
		return nil
	}
	var out []Alert
	for _, f := range ferries {
		if seen[f.WayID] {
			continue
		}
		seen[f.WayID] = true
		var a Alert
		if f.Name != "" {
			a = alert(CodeFerryCrossing, SeverityWarning, i, "alert.ferry_crossing", words.Args{"day": i + 1, "name": f.Name})
		} else {
			a = alert(CodeFerryCrossing, SeverityWarning, i, "alert.ferry_crossing.unnamed", words.Args{"day": i + 1})
		}
		a.Lat, a.Lon = coords(f.At)
		a.Action = navigate("action.show_ferry", f.At)
		out = append(out, a)
	}
	return out
}

// Closure tells a riding day whose every place to sleep may be closed for
// the season on its date (accommodation_seasonal_closure, warning); the
// caller marks the candidates, which claim nothing without a date.
func Closure(i int, s Stage, date *time.Time, candidates, closed int) []Alert {
	if s.IsRestDay || date == nil || candidates == 0 || closed < candidates {
		return nil
	}
	a := alert(CodeAccommodationSeasonalClosure, SeverityWarning, i, "alert.accommodation_seasonal_closure",
		words.Args{"day": i + 1, "date": date.Format("2006-01-02")})
	a.Lat, a.Lon = coords(s.End)
	return []Alert{a}
}
