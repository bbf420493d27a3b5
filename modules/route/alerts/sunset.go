package alerts

import (
	"errors"
	"fmt"
	"time"

	"cairn.dev/cairn/modules/route/words"
)

// EarliestDeparture is the earliest hour the sunset auto_fix proposes.
const EarliestDeparture = 5

// SunsetArrival reports every riding stage whose estimated arrival comes
// after civil twilight ends at its end point (sunset_arrival_after_twilight,
// warning), with both times in the end point's local time. An arrival
// exactly at the end of twilight is not reported.
//
// Without a start date it says nothing at all: "you will arrive after dark"
// is a statement about a calendar the rider has not set (ADR-074), and
// borrowing today's date would freeze the verdict on whichever day the
// analysis ran. Stage i is ridden on the start date + i days. Days on which
// civil twilight does not end (polar day, white nights) or never comes
// (polar night) are skipped: there is no dusk to arrive after.
//
// The departure is DepartureHour on the stage's date in the start point's
// time zone (the rider's local hour); arrival adds RideTime. The auto_fix
// proposes the departure hour max(5, ⌊twilight − ride time⌋) in that zone.
//
// A stage whose time zone cannot be found is not judged; the alerts of the
// others come back with an error wrapping ErrUnavailable, so the caller can
// tell an incomplete verdict from "arrives in time".
func SunsetArrival(trip Trip, stages []Stage, zones Zones) ([]Alert, error) {
	if trip.StartDate == nil {
		return nil, nil
	}
	year, month, day := trip.StartDate.UTC().Date()
	var out []Alert
	var errs []error
	for i, s := range stages {
		if s.IsRestDay {
			continue
		}
		date := time.Date(year, month, day+i, 0, 0, 0, 0, time.UTC)
		dusk, sky := CivilDusk(s.End, date.Year(), date.Month(), date.Day())
		if sky != SkyDusk {
			continue
		}
		startZone, err := zones.Zone(s.Start)
		if err != nil {
			errs = append(errs, fmt.Errorf("alerts: sunset of day %d: %w: %w", i+1, ErrUnavailable, err))
			continue
		}
		endZone, err := zones.Zone(s.End)
		if err != nil {
			errs = append(errs, fmt.Errorf("alerts: sunset of day %d: %w: %w", i+1, ErrUnavailable, err))
			continue
		}
		ride := RideTime(trip, s)
		departure := time.Date(date.Year(), date.Month(), date.Day(), trip.DepartureHour, 0, 0, 0, startZone)
		arrival := departure.Add(ride)
		if !arrival.After(dusk) {
			continue
		}
		leave := latestDeparture(dusk.Add(-ride).In(startZone), date)
		a := alert(CodeSunsetArrivalAfterTwilight, SeverityWarning, i, "alert.sunset_arrival_after_twilight",
			words.Args{"day": i + 1, "arrival": clock(arrival.In(endZone), date), "dusk": clock(dusk.In(endZone), date)})
		a.Lat, a.Lon = coords(s.End)
		a.Action = act(ActionAutoFix, "action.leave_at", words.Args{"time": fmt.Sprintf("%02d:00", leave)},
			map[string]any{"departureHour": leave})
		out = append(out, a)
	}
	return out, errors.Join(errs...)
}

// latestDeparture is the departure hour the sunset auto_fix proposes: the
// whole hour of the latest departure that arrives by dusk, no earlier than
// EarliestDeparture. A latest departure on the day before (a ride longer
// than the time from midnight to dusk) floors to EarliestDeparture as well.
// It cannot fall after the stage's date: it precedes the planned departure.
func latestDeparture(latest time.Time, date time.Time) int {
	if daysAfter(latest, date) < 0 {
		return EarliestDeparture
	}
	return max(EarliestDeparture, latest.Hour())
}

// clock is t as a local wall-clock time, marked when it falls on another day
// than the stage's date (a late arrival, or a dusk after midnight near the
// polar circles).
func clock(t time.Time, date time.Time) any {
	hm := t.Format("15:04")
	switch n := daysAfter(t, date); {
	case n == 0:
		return hm
	case n == 1:
		return words.T("clock.next_day", words.Args{"time": hm})
	case n == -1:
		return words.T("clock.day_before", words.Args{"time": hm})
	case n > 1:
		return words.T("clock.days_later", words.Args{"time": hm, "days": n})
	default:
		return words.T("clock.days_before", words.Args{"time": hm, "days": -n})
	}
}

// daysAfter is how many calendar days t's local date comes after date's UTC
// calendar date.
func daysAfter(t, date time.Time) int {
	y, m, d := t.Date()
	local := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	y, m, d = date.UTC().Date()
	return int(local.Sub(time.Date(y, m, d, 0, 0, 0, 0, time.UTC)) / (24 * time.Hour))
}
