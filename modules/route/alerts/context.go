package alerts

import (
	"time"

	"cairn.dev/cairn/modules/route/words"
)

// Country names a country in any language when the words know it, else
// by its code.
func Country(code string) any {
	if words.Has("country." + code) {
		return words.T("country."+code, nil)
	}
	return code
}

// DefaultCountry is the country a checkpoint is taken to be in when the
// borders name none (at sea): the calendar rule's "France if none".
const DefaultCountry = "FR"

// Borders tells where the country changes between consecutive
// checkpoints (the first start, then each stage's end; countries[k] is
// the country at checkpoint k, "" unknown), each ordered pair of
// countries once over the trip (border_crossing, nudge); the alert belongs
// to the stage reaching the new country and goes to its end.
func Borders(stages []Stage, countries []string) []Alert {
	seen := map[[2]string]bool{}
	var out []Alert
	for i := range stages {
		if i+1 >= len(countries) {
			break
		}
		from, to := countries[i], countries[i+1]
		if from == "" || to == "" || from == to || seen[[2]string{from, to}] {
			continue
		}
		seen[[2]string{from, to}] = true
		a := alert(CodeBorderCrossing, SeverityNudge, i, "alert.border_crossing", words.Args{"day": i + 1, "from": Country(from), "to": Country(to)})
		a.Lat, a.Lon = coords(stages[i].End)
		a.Action = navigate("action.show_border", stages[i].End)
		out = append(out, a)
	}
	return out
}

// Holiday is a public holiday on a stage's date in one of its countries.
type Holiday struct {
	Country, Name string
}

// Calendar tells a day, rest days included, that falls on a public
// holiday in a country it is in (calendar_public_holiday, nudge) or else
// on a Sunday (calendar_sunday, nudge); both dismissible. Without a date
// nothing is claimed.
func Calendar(i int, date *time.Time, holiday *Holiday) []Alert {
	if date == nil {
		return nil
	}
	args := words.Args{"day": i + 1, "date": date.Format("2006-01-02")}
	var a Alert
	switch {
	case holiday != nil:
		args["country"], args["name"] = Country(holiday.Country), holiday.Name
		a = alert(CodeCalendarPublicHoliday, SeverityNudge, i, "alert.calendar_public_holiday", args)
	case date.Weekday() == time.Sunday:
		a = alert(CodeCalendarSunday, SeverityNudge, i, "alert.calendar_sunday", args)
	default:
		return nil
	}
	a.Action = act(ActionDismiss, "action.dismiss", nil, nil)
	return []Alert{a}
}

// Wind and comfort thresholds (pipeline.md §8).
const (
	HeadwindSpeed = 25.0 // km/h
	HeadwindShare = 0.6  // of the stages with a forecast
	PoorComfort   = 39
)

// Wind tells the trip when 60 % or more of its stages with a forecast
// have a headwind of 25 km/h or more (wind_headwind, warning, trip level).
func Wind(weather []*DayWeather) []Alert {
	with, head := 0, 0
	for _, w := range weather {
		if w == nil {
			continue
		}
		with++
		if w.WindSpeed >= HeadwindSpeed && w.Relative == "headwind" {
			head++
		}
	}
	if with == 0 || float64(head) < HeadwindShare*float64(with) {
		return nil
	}
	return []Alert{alert(CodeWindHeadwind, SeverityWarning, TripLevel, "alert.wind_headwind", words.Args{"count": head, "total": with})}
}

// Comfort tells the trip when one of its stages has a comfort index of 39
// or less (comfort_poor_conditions, warning, trip level), naming the
// worst.
func Comfort(weather []*DayWeather) []Alert {
	count, worst, worstDay := 0, 101, 0
	for i, w := range weather {
		if w == nil || w.Comfort > PoorComfort {
			continue
		}
		count++
		if w.Comfort < worst {
			worst, worstDay = w.Comfort, i+1
		}
	}
	if count == 0 {
		return nil
	}
	return []Alert{alert(CodeComfortPoorConditions, SeverityWarning, TripLevel, "alert.comfort_poor_conditions",
		words.Args{"count": count, "day": worstDay, "comfort": worst})}
}
