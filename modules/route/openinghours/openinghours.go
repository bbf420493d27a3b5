// Package openinghours reads the common part of OpenStreetMap's
// opening_hours syntax and tells whether a place is open at a time: rules
// separated by ";" (a later rule replaces the earlier ones for the days it
// names, as the specification says), each of optional months ("Apr-Oct",
// "Dec-Feb"), optional weekdays ("Mo-Fr,Su"), optional times
// ("08:00-12:00,14:00-18:30", past midnight as "22:00-02:00" or
// "18:00-26:00"), and "off" or "closed"; "24/7" alone. Anything else
// (sunrise, week numbers, public-holiday selectors, comments, fallback
// rules) makes the hours unknown: the caller then claims nothing.
//
// The Go module proxy served no maintained Go parser of this syntax when
// this was written, so the subset is read here; the reference is the
// specification on the OpenStreetMap wiki and its evaluation tool.
package openinghours

import (
	"strconv"
	"strings"
	"time"
)

// State is what the hours say of a time.
type State int

// The states.
const (
	Unknown State = iota // the hours are missing or beyond this subset
	Open
	Closed
)

type span struct{ from, to int } // minutes from midnight; to may pass 1440

type rule struct {
	months   [13]bool // [0] unused; all false: every month
	anyMonth bool
	days     [7]bool // time.Weekday order; all false: every day
	anyDay   bool
	spans    []span // none: the whole day
	off      bool
}

// Hours are parsed opening hours.
type Hours struct{ rules []rule }

// Parse reads s; ok is false when s is empty or goes beyond the subset.
func Parse(s string) (Hours, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Hours{}, false
	}
	var h Hours
	for part := range strings.SplitSeq(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		r, ok := parseRule(part)
		if !ok {
			return Hours{}, false
		}
		h.rules = append(h.rules, r)
	}
	return h, len(h.rules) > 0
}

var weekdays = map[string]time.Weekday{"Mo": time.Monday, "Tu": time.Tuesday, "We": time.Wednesday,
	"Th": time.Thursday, "Fr": time.Friday, "Sa": time.Saturday, "Su": time.Sunday}

var monthNames = map[string]time.Month{"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
	"Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12}

func parseRule(s string) (rule, bool) {
	r := rule{anyMonth: true, anyDay: true}
	if s == "24/7" {
		return r, true
	}
	fields := strings.Fields(strings.ReplaceAll(s, ", ", ","))
	i := 0
	if i < len(fields) && isMonths(fields[i]) {
		if !r.setMonths(fields[i]) {
			return rule{}, false
		}
		i++
	}
	if i < len(fields) && isDays(fields[i]) {
		if !r.setDays(fields[i]) {
			return rule{}, false
		}
		i++
	}
	if i < len(fields) && strings.Contains(fields[i], ":") {
		for t := range strings.SplitSeq(fields[i], ",") {
			sp, ok := parseSpan(t)
			if !ok {
				return rule{}, false
			}
			r.spans = append(r.spans, sp)
		}
		i++
	}
	if i < len(fields) && (fields[i] == "off" || fields[i] == "closed") {
		r.off = true
		i++
	}
	if i != len(fields) || (r.anyMonth && r.anyDay && r.spans == nil && !r.off) {
		return rule{}, false // something left unread, or a rule that says nothing
	}
	return r, true
}

func isMonths(f string) bool { _, ok := monthNames[f[:min(3, len(f))]]; return ok }
func isDays(f string) bool   { _, ok := weekdays[f[:min(2, len(f))]]; return ok }

func (r *rule) setMonths(f string) bool {
	r.anyMonth = false
	return setRange(f, monthNames, func(m time.Month) time.Month { return m%12 + 1 }, func(m time.Month) { r.months[m] = true })
}

func (r *rule) setDays(f string) bool {
	r.anyDay = false
	return setRange(f, weekdays, func(d time.Weekday) time.Weekday { return (d + 1) % 7 }, func(d time.Weekday) { r.days[d] = true })
}

// setRange reads a selector of names and ranges ("Mo-Fr,Su", "Dec-Feb"),
// ranges wrapping past the last name, and sets each one named.
func setRange[K comparable](f string, names map[string]K, next func(K) K, set func(K)) bool {
	for part := range strings.SplitSeq(f, ",") {
		a, b, isRange := strings.Cut(part, "-")
		from, ok1 := names[a]
		to, ok2 := from, true
		if isRange {
			to, ok2 = names[b]
		}
		if !ok1 || !ok2 {
			return false
		}
		for k := from; ; k = next(k) {
			set(k)
			if k == to {
				break
			}
		}
	}
	return true
}

func parseSpan(s string) (span, bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return span{}, false
	}
	from, ok1 := clock(a)
	to, ok2 := clock(b)
	if !ok1 || !ok2 || from >= 24*60 {
		return span{}, false
	}
	if to <= from {
		to += 24 * 60 // past midnight
	}
	return span{from, to}, true
}

func clock(s string) (int, bool) {
	h, m, ok := strings.Cut(s, ":")
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || len(m) != 2 || hh < 0 || hh > 48 || mm < 0 || mm > 59 {
		return 0, false
	}
	return hh*60 + mm, true
}

func (r *rule) matchesDay(t time.Time) bool {
	return (r.anyMonth || r.months[t.Month()]) && (r.anyDay || r.days[t.Weekday()])
}

// At says whether the hours are open at t (a wall-clock time where the
// place is).
func (h Hours) At(t time.Time) State {
	if len(h.rules) == 0 {
		return Unknown
	}
	minute := t.Hour()*60 + t.Minute()
	yesterday := t.AddDate(0, 0, -1)
	state := Closed
	// A later rule naming the day replaces what the earlier ones said of
	// it; a span past midnight opens the start of the next day.
	var today, before *rule
	for i := range h.rules {
		r := &h.rules[i]
		if r.matchesDay(t) {
			today = r
		}
		if r.matchesDay(yesterday) {
			before = r
		}
	}
	if before != nil && !before.off {
		for _, sp := range before.spans {
			if sp.to > 24*60 && minute < sp.to-24*60 {
				state = Open
			}
		}
	}
	if today == nil {
		return state
	}
	if today.off {
		return Closed
	}
	if today.spans == nil {
		return Open
	}
	for _, sp := range today.spans {
		if minute >= sp.from && minute < sp.to {
			return Open
		}
	}
	return state
}
