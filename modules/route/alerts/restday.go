package alerts

import "fmt"

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
		out = append(out, Alert{
			Code:       CodeRestDaySuggested,
			Severity:   SeverityNudge,
			Message:    fmt.Sprintf("%d days of riding in a row: consider a rest day after day %d.", riding, i+1),
			StageIndex: i,
			Action: &Action{
				Kind:    ActionAutoFix,
				Label:   fmt.Sprintf("Add a rest day after day %d", i+1),
				Payload: map[string]any{"afterStageIndex": i},
			},
		})
	}
	return out
}
