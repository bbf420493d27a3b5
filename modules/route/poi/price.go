package poi

import (
	"regexp"
	"strconv"
	"strings"
)

// Price is a night's price in euros: exact when the source states it.
type Price struct {
	Min, Max float64
	Exact    bool
}

// brackets are the estimated prices of pipeline.md §7, in euros.
var brackets = map[string]Price{
	TypeCampSite:      {Min: 8, Max: 25},
	TypeHostel:        {Min: 20, Max: 35},
	TypeAlpineHut:     {Min: 25, Max: 45},
	TypeChalet:        {Min: 30, Max: 70},
	TypeGuestHouse:    {Min: 40, Max: 80},
	TypeHotel:         {Min: 50, Max: 120},
	TypeWildernessHut: {Min: 0, Max: 10},
}

// backpackCampSite is the camp_site bracket when backpack=yes or tents=yes:
// a pitch for a tent, not for a camper van.
var backpackCampSite = Price{Min: 8, Max: 15}

// EstimatePrice prices a night at an accommodation of type category with
// tags, in this order:
//
//   - charge holding an amount in euros (or with no currency): that amount,
//     exact ("12.50 EUR/night" → 12.5; "10-15 €" → 10 to 15);
//   - fee holding such an amount: exact likewise;
//   - fee=no: exactly 0;
//   - otherwise the type's bracket (camp_site narrows to 8–15 with
//     backpack=yes or tents=yes), whose floor each star above 2 lifts by 25 %
//     of the span, at most 75 %.
//
// An amount in another currency (CHF, GBP, NOK, $, £…) is not converted: the
// bracket stands in. A type without a bracket (manual "other") prices 0.
func EstimatePrice(category string, tags Tags) Price {
	if p, ok := parseAmount(tags[TagCharge]); ok {
		return p
	}
	fee := strings.TrimSpace(tags[TagFee])
	if p, ok := parseAmount(fee); ok {
		return p
	}
	if strings.EqualFold(fee, "no") {
		return Price{Exact: true}
	}
	b, ok := brackets[category]
	if !ok {
		return Price{}
	}
	if category == TypeCampSite && (isYes(tags[TagBackpack]) || isYes(tags[TagTents])) {
		b = backpackCampSite
	}
	if stars, ok := parseStars(tags[TagStars]); ok && stars > 2 {
		lift := min(0.25*(stars-2), 0.75)
		b.Min += lift * (b.Max - b.Min)
	}
	return b
}

func isYes(v string) bool { return strings.EqualFold(strings.TrimSpace(v), "yes") }

var (
	// amountRe finds the first amount, or range of amounts, in a charge.
	amountRe = regexp.MustCompile(`(\d+(?:[.,]\d{1,2})?)(?:\s*[-–]\s*(\d+(?:[.,]\d{1,2})?))?`)
	// foreignRe finds a currency other than the euro, among those a rider
	// in Europe meets: ISO codes in any case, symbols and local spellings.
	foreignRe = regexp.MustCompile(`(?i)(?:^|[^\pL])(?:CHF|S?Fr\.|GBP|USD|CAD|AUD|NZD|JPY|NOK|SEK|DKK|ISK|kr|PLN|zł|CZK|Kč|HUF|Ft|RON|lei|BGN|лв|RSD|BAM|MKD|UAH|RUB|GEL|MAD)(?:[^\pL]|$)|[$£¥₽₺₹₴]`)
)

// parseAmount reads the first amount, or range, of a charge or fee. It
// refuses text without digits, and amounts in another currency.
func parseAmount(s string) (Price, bool) {
	s = strings.TrimSpace(s)
	m := amountRe.FindStringSubmatch(s)
	if m == nil || foreignRe.MatchString(s) {
		return Price{}, false
	}
	lo, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", "."), 64)
	if err != nil {
		return Price{}, false
	}
	hi := lo
	if m[2] != "" {
		if v, err := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", "."), 64); err == nil && v >= lo {
			hi = v
		}
	}
	return Price{Min: lo, Max: hi, Exact: true}, true
}

// starsRe reads the number of a stars tag ("3", "4S" for superior, "3.5").
var starsRe = regexp.MustCompile(`^\s*(\d+(?:\.\d+)?)`)

func parseStars(s string) (float64, bool) {
	m := starsRe.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	return v, err == nil
}
