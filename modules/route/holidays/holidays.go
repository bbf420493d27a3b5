// Package holidays lists a country's national public holidays, computed
// offline by github.com/rickar/cal/v2 (its per-country definitions; Easter
// and the days that move with it are computed for any year). Regional
// holidays (a German Land's, a Swiss canton's) are not listed: a route
// crosses regions the definitions do not place.
package holidays

import (
	"slices"
	"time"

	"github.com/rickar/cal/v2"
	"github.com/rickar/cal/v2/at"
	"github.com/rickar/cal/v2/be"
	"github.com/rickar/cal/v2/ch"
	"github.com/rickar/cal/v2/cz"
	"github.com/rickar/cal/v2/de"
	"github.com/rickar/cal/v2/dk"
	"github.com/rickar/cal/v2/es"
	"github.com/rickar/cal/v2/fr"
	"github.com/rickar/cal/v2/gb"
	"github.com/rickar/cal/v2/hr"
	"github.com/rickar/cal/v2/ie"
	"github.com/rickar/cal/v2/it"
	"github.com/rickar/cal/v2/nl"
	"github.com/rickar/cal/v2/no"
	"github.com/rickar/cal/v2/pl"
	"github.com/rickar/cal/v2/se"
	"github.com/rickar/cal/v2/si"
	"github.com/rickar/cal/v2/sk"
)

// byCountry maps ISO 3166-1 alpha-2 codes to the library's national lists.
var byCountry = map[string][]*cal.Holiday{
	"AT": at.Holidays, "BE": be.Holidays, "CH": ch.Holidays, "CZ": cz.Holidays, "DE": de.Holidays,
	"DK": dk.Holidays, "ES": es.Holidays, "FR": fr.Holidays, "GB": gb.Holidays, "HR": hr.Holidays,
	"IE": ie.Holidays, "IT": it.Holidays, "NL": nl.Holidays, "NO": no.Holidays, "PL": pl.Holidays,
	"SE": se.Holidays, "SI": si.Holidays, "SK": sk.Holidays,
}

// Holiday is one public holiday: its date (a UTC calendar day) and its
// name in the country's language.
type Holiday struct {
	Date time.Time
	Name string
}

// Known reports whether the holidays of country are known.
func Known(country string) bool { _, ok := byCountry[country]; return ok }

// Countries lists the countries whose holidays are known, sorted.
func Countries() []string {
	out := make([]string, 0, len(byCountry))
	for c := range byCountry {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// On is the public holiday of country on day (its UTC calendar date), if
// any; ok is false when it is none, or the country's holidays are unknown
// (tell them apart with Known).
func On(country string, day time.Time) (Holiday, bool) {
	y, m, d := day.UTC().Date()
	for _, h := range byCountry[country] {
		if h.Type != cal.ObservancePublic && h.Type != cal.ObservanceUnknown {
			continue
		}
		actual, _ := h.Calc(y)
		if actual.IsZero() {
			continue
		}
		if ay, am, ad := actual.Date(); ay == y && am == m && ad == d {
			return Holiday{Date: time.Date(y, m, d, 0, 0, 0, 0, time.UTC), Name: h.Name}, true
		}
	}
	return Holiday{}, false
}
