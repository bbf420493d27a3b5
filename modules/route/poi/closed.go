package poi

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// PossiblyClosed reports whether an accommodation with tags may be closed on
// date (pipeline.md §7). Without a date it claims nothing: false.
//
// opening_hours is read only for its month selectors: a rule starting with
// months ("Apr-Oct", "May 15-Sep 30", "Jun,Aug", which may wrap: "Dec-Mar")
// opens those months, or closes them when it says off or closed ("Nov-Mar
// off"). The date is possibly closed when it falls in a closing rule's
// months, or when there are opening month rules, no rule without months (a
// year-round rule such as "Mo-Su 08:00-20:00" overrides them) and the date
// is outside all of them. Without any month selector, seasonal=yes (or
// summer) means closed from November to March.
func PossiblyClosed(tags Tags, date *time.Time) bool {
	if date == nil {
		return false
	}
	day := monthDay{month: date.Month(), day: date.Day()}
	if closed, known := closedByHours(tags[TagOpeningHours], day); known {
		return closed
	}
	switch strings.ToLower(strings.TrimSpace(tags[TagSeasonal])) {
	case "yes", "summer":
		return day.month >= time.November || day.month <= time.March
	}
	return false
}

type monthDay struct {
	month time.Month
	day   int
}

func (d monthDay) key() int { return int(d.month)*100 + d.day }

type monthRange struct{ from, to monthDay }

// contains includes both ends; a range whose end comes before its start
// wraps over the new year.
func (r monthRange) contains(d monthDay) bool {
	from, to, k := r.from.key(), r.to.key(), d.key()
	if from <= to {
		return from <= k && k <= to
	}
	return k >= from || k <= to
}

// closedByHours reads hours; known is false when they hold no month
// selector, so that seasonal decides.
func closedByHours(hours string, d monthDay) (closed, known bool) {
	var open, shut []monthRange
	yearRound := false
	for rule := range strings.SplitSeq(strings.ReplaceAll(hours, "||", ";"), ";") {
		rule = strings.TrimSpace(rule)
		if rule == "" {
			continue
		}
		ranges, rest := monthSelector(rule)
		off := isOff(rest)
		switch {
		case len(ranges) == 0 && !off:
			yearRound = true
		case off:
			shut = append(shut, ranges...)
		default:
			open = append(open, ranges...)
		}
	}
	if len(open) == 0 && len(shut) == 0 {
		return false, false
	}
	for _, r := range shut {
		if r.contains(d) {
			return true, true
		}
	}
	if yearRound || len(open) == 0 {
		return false, true
	}
	for _, r := range open {
		if r.contains(d) {
			return false, true
		}
	}
	return true, true
}

var months = map[string]time.Month{
	"jan": time.January, "feb": time.February, "mar": time.March, "apr": time.April,
	"may": time.May, "jun": time.June, "jul": time.July, "aug": time.August,
	"sep": time.September, "oct": time.October, "nov": time.November, "dec": time.December,
}

// monthRe reads one month, with an optional day, at the start of s.
var monthRe = regexp.MustCompile(`^([A-Za-z]{3})(?:\s+(\d{1,2}))?\b`)

// monthSelector reads the comma-separated month ranges leading rule, and
// returns them with the rest of the rule. A rule not led by a month (or with
// a form it does not know, such as a year or "Jun 1-15") has no ranges.
func monthSelector(rule string) ([]monthRange, string) {
	var ranges []monthRange
	s := rule
	for {
		from, withDay, rest, ok := month(s, 1)
		if !ok {
			return nil, rule
		}
		// A month alone is the whole month; a day alone is that day.
		to := monthDay{month: from.month, day: 31}
		if withDay {
			to.day = from.day
		}
		if after, found := strings.CutPrefix(strings.TrimLeft(rest, " "), "-"); found {
			if to, _, rest, ok = month(strings.TrimLeft(after, " "), 31); !ok {
				return nil, rule
			}
		}
		ranges = append(ranges, monthRange{from: from, to: to})
		next, found := strings.CutPrefix(strings.TrimLeft(rest, " "), ",")
		if !found {
			return ranges, strings.TrimLeft(rest, " :")
		}
		s = strings.TrimLeft(next, " ")
	}
}

// month reads a month and optional day at the start of s; a month alone
// means day defaultDay. A number followed by a colon is a time ("Apr
// 08:00-20:00"), not a day.
func month(s string, defaultDay int) (d monthDay, withDay bool, rest string, ok bool) {
	m := monthRe.FindStringSubmatch(s)
	if m == nil {
		return monthDay{}, false, s, false
	}
	mo, known := months[strings.ToLower(m[1])]
	if !known {
		return monthDay{}, false, s, false
	}
	d = monthDay{month: mo, day: defaultDay}
	rest = s[len(m[0]):]
	if m[2] == "" || strings.HasPrefix(rest, ":") {
		return d, false, s[len(m[1]):], true
	}
	n, err := strconv.Atoi(m[2])
	if err != nil || n < 1 || n > 31 {
		return monthDay{}, false, s, false
	}
	d.day = n
	return d, true, rest, true
}

func isOff(rest string) bool {
	rest = strings.ToLower(strings.TrimSpace(rest))
	return strings.HasPrefix(rest, "off") || strings.HasPrefix(rest, "closed")
}
