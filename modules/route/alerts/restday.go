package alerts

import "cairn.dev/cairn/modules/route/words"

// RestEvery is the length of a run of riding days after which a rest day is
// suggested.
const RestEvery = 3

// RestDaySuggested suggests a rest day (rest_day_suggested, nudge) after a
// riding stage that closes a run of consecutive riding days whose length is
// a multiple of RestEvery, unless it is the last stage (the trip is over)
// or the next stage is already a rest day. Its auto_fix inserts a rest day
// after this one.
func RestDaySuggested(stages []Stage) []Alert {
	var out []Alert
	riding := 0 // length of the run of riding days ending at i
	for i, s := range stages {
		if s.IsRestDay {
			riding = 0
			continue
		}
		riding++
		if riding%RestEvery != 0 || i == len(stages)-1 || stages[i+1].IsRestDay {
			continue
		}
		a := alert(CodeRestDaySuggested, SeverityNudge, i, "alert.rest_day_suggested", words.Args{"days": riding, "day": i + 1})
		a.Action = act(ActionAutoFix, "action.add_rest_day", words.Args{"day": i + 1}, map[string]any{"afterStageIndex": i})
		out = append(out, a)
	}
	return out
}
