package alerts

import (
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/words"
)

// Gap thresholds of the continuity rule, in metres: a gap up to
// GapWarningAbove is GPS noise, one up to GapCriticalAbove a short walk.
const (
	GapWarningAbove  = 100.0
	GapCriticalAbove = 500.0
)

// Continuity reports where a stage does not start where the rider stopped:
// continuity_gap_critical above 500 m, continuity_gap_warning above 100 m.
//
// Every stage after the first is compared with the end of the nearest earlier
// riding stage, not simply the stage before: a rest day has no route of its
// own (it sits at the previous stage's end), so the day after it must start
// where the last ride ended, and a rest day does not hide that gap. Rest days
// are checked too, against the same end, which only finds something when a
// rest day was left behind after its stages moved. The alert belongs to the
// later stage and sits at the end the rider reached; its action navigates to
// the start of the next day along the gap.
func Continuity(stages []Stage) []Alert {
	var out []Alert
	reached := -1 // index of the last riding stage so far
	for i, s := range stages {
		if i > 0 {
			from := i - 1
			if reached >= 0 {
				from = reached
			}
			if a, ok := gap(from, i, stages[from].End, s.Start); ok {
				out = append(out, a)
			}
		}
		if !s.IsRestDay {
			reached = i
		}
	}
	return out
}

func gap(from, to int, end, start geo.Point) (Alert, bool) {
	metres := geo.Distance(end, start)
	var code Code
	var severity Severity
	switch {
	case metres > GapCriticalAbove:
		code, severity = CodeContinuityGapCritical, SeverityCritical
	case metres > GapWarningAbove:
		code, severity = CodeContinuityGapWarning, SeverityWarning
	default:
		return Alert{}, false
	}
	a := alert(code, severity, to, "alert.continuity_gap", words.Args{"metres": metres, "from": from + 1, "to": to + 1})
	a.Lat, a.Lon = coords(end)
	a.Action = navigate("action.show_gap", start, []geo.Point{end, start})
	return a, true
}
