package trips

import (
	"fmt"
	"time"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/pacing"
	"cairn.dev/cairn/registry"
)

// The bounds of a trip's size. Everything a trip is read as (its page, its
// route, its files, get_trip) grows with its days and its points, and the
// share page is read by anyone holding the link: the bounds are what keeps
// the cost of one anonymous read small whatever was uploaded.
const (
	// MaxDays is the most days a trip may have: about 8,000 km at the
	// default 80 km a day, 30,000 km at the largest daily distance, and
	// more than three months of riding. An import that would make more is
	// refused, dates that span more are refused, and no edit adds a day
	// past it.
	MaxDays = 100
	// MaxRoutePoints is the most points a route may keep once simplified
	// (decimate.Tolerance, 20 m): 25,000 recorded points usually become
	// about 1,500, so a ride of MaxDays keeps well under a tenth of it.
	// What is over it is a recording no map needs at that precision.
	MaxRoutePoints = 50_000
)

// daysOf is how many days pacing will cut tr's route of distance km into,
// with tracks tours of a collection: the cheap estimate judged before the
// route is simplified.
func daysOf(tr *Trip, distance float64, tracks int, collection bool) int {
	if collection && tracks > 1 {
		return tracks
	}
	if tr.StartDate != nil && tr.EndDate != nil {
		s, err1 := time.Parse(dateLayout, *tr.StartDate)
		e, err2 := time.Parse(dateLayout, *tr.EndDate)
		if err1 == nil && err2 == nil {
			return pacing.DayCount(s, e)
		}
	}
	return pacing.Days(distance, pacing.Params{MaxDistance: tr.MaxDistancePerDay})
}

// tooManyDays is the reason a route of distance km makes too many days for
// tr, or "" when it fits.
func tooManyDays(tr *Trip, distance float64, tracks int, collection bool) string {
	n := daysOf(tr, distance, tracks, collection)
	if n <= MaxDays {
		return ""
	}
	if collection && tracks > 1 {
		return fmt.Sprintf("holds %d tours, one day each; a trip has at most %d days", n, MaxDays)
	}
	return fmt.Sprintf("is %.0f km, %d days at %.0f km a day; a trip has at most %d days (raise maxDistancePerDay or split the route)",
		distance, n, tr.MaxDistancePerDay, MaxDays)
}

// tooManyPoints is the reason a simplified route of n points is too
// detailed, or "" when it fits.
func tooManyPoints(n int) string {
	if n <= MaxRoutePoints {
		return ""
	}
	return fmt.Sprintf("keeps %d points once simplified; a route keeps at most %d", n, MaxRoutePoints)
}

// SizeError is an imported route over the bounds: Reason says which, in
// words naming the number.
type SizeError struct{ Reason string }

// Error implements error.
func (e *SizeError) Error() string { return "the route " + e.Reason }

// judgeSize judges imported tracks for tr, cheapest first: the day count
// from the distance alone, before anything is simplified.
func judgeSize(tr *Trip, imp Imported) error {
	distance := 0.0
	tracks := 0
	for _, t := range imp.Tracks {
		if len(t) > 1 {
			tracks++
			distance += geo.Length(t) / 1000
		}
	}
	if r := tooManyDays(tr, distance, tracks, imp.SourceType == "komoot_collection"); r != "" {
		return &SizeError{Reason: r}
	}
	return nil
}

// sizeRefusal is the 422 of an upload over the bounds, naming the file.
func sizeRefusal(e *SizeError) error {
	return registry.Invalid("the file is larger than a trip may be; nothing was created",
		registry.Violation{Field: UploadFile, Reason: e.Reason})
}
