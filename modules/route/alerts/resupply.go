package alerts

import (
	"math"
	"slices"
	"time"
)

// Lunch is when the rider looks for lunch, local time.
const Lunch = 12*time.Hour + 30*time.Minute

// Resupply is a day's curated stops (model.md): two places to buy food
// nearest lunch, two nearest the arrival, a water point in the morning and
// one in the afternoon.
type Resupply struct {
	FoodAtLunch    []Found
	WaterMorning   *Found
	WaterAfternoon *Found
	FoodAtArrival  []Found
}

// LunchAlong is where along a stage (metres from its start) the rider's
// estimated time reaches 12:30, and false when the ride starts after it or
// ends before it.
func LunchAlong(trip Trip, s Stage) (float64, bool) {
	ride := RideTime(trip, s)
	dep := time.Duration(trip.DepartureHour) * time.Hour
	if ride <= 0 || dep >= Lunch || dep+ride <= Lunch {
		return 0, false
	}
	return float64(Lunch-dep) / float64(ride) * s.Distance * 1000, true
}

// Curate chooses a riding day's stops among the places found along it
// (pipeline.md §7).
func Curate(trip Trip, s Stage, food, water []Found) Resupply {
	var r Resupply
	if s.IsRestDay {
		return r
	}
	arrival := s.Distance * 1000
	lunch, hasLunch := LunchAlong(trip, s)
	if hasLunch {
		r.FoodAtLunch = nearestAlong(food, lunch, 2, nil)
	}
	r.FoodAtArrival = nearestAlong(food, arrival, 2, r.FoodAtLunch)
	split := lunch
	if !hasLunch {
		split = 0
		if time.Duration(trip.DepartureHour)*time.Hour+RideTime(trip, s) <= Lunch {
			split = arrival // the whole ride is a morning
		}
	}
	var morning, afternoon []Found
	for _, w := range water {
		if w.Along <= split {
			morning = append(morning, w)
		} else {
			afternoon = append(afternoon, w)
		}
	}
	if m := nearestAlong(morning, split/2, 1, nil); len(m) == 1 {
		r.WaterMorning = &m[0]
	}
	if a := nearestAlong(afternoon, (split+arrival)/2, 1, nil); len(a) == 1 {
		r.WaterAfternoon = &a[0]
	}
	return r
}

// nearestAlong is up to n places nearest at along the line, skipping those
// of taken.
func nearestAlong(places []Found, at float64, n int, taken []Found) []Found {
	var left []Found
	for _, p := range places {
		if !slices.ContainsFunc(taken, func(t Found) bool { return t.Point == p.Point && t.Name == p.Name }) {
			left = append(left, p)
		}
	}
	slices.SortStableFunc(left, func(a, b Found) int { return cmpF(math.Abs(a.Along-at), math.Abs(b.Along-at)) })
	return left[:min(n, len(left))]
}
