package alerts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
)

// TestRestDaySuggested runs test-scenarios.md 54 and the rule's other
// clauses. Days are written R (riding) and - (rest).
func TestRestDaySuggested(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give string
		want []int // stage indexes
	}{
		{name: "five cycling stages", give: "RRRRR", want: []int{2}},
		{name: "day 4 already a rest day", give: "RRR-R", want: []int{}},
		{name: "three stages: day 3 is the last", give: "RRR", want: []int{}},
		{name: "two stages", give: "RR", want: []int{}},
		{name: "six stages: day 6 is the last", give: "RRRRRR", want: []int{2}},
		{name: "seven stages", give: "RRRRRRR", want: []int{2, 5}},
		{name: "a rest day restarts the count", give: "RR-RRRR", want: []int{5}},
		{name: "run of three after a rest day", give: "RRR-RRRR", want: []int{6}},
		{name: "empty", give: "", want: []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			found := alerts.RestDaySuggested(days(tt.give))
			assert.Equal(t, tt.want, stageIndexes(found))
			for _, a := range found {
				assert.Equal(t, alerts.CodeRestDaySuggested, a.Code)
				assert.Equal(t, alerts.SeverityNudge, a.Severity)
				require.NotNil(t, a.Action)
				assert.Equal(t, alerts.ActionAutoFix, a.Action.Kind)
				assert.Equal(t, a.StageIndex, a.Action.Payload["afterStageIndex"])
			}
		})
	}
}

func TestRestDaySuggestedMessage(t *testing.T) {
	t.Parallel()

	found := alerts.RestDaySuggested(days("RRRRR"))
	require.Len(t, found, 1)
	assert.Equal(t, "3 days of riding in a row: consider a rest day after day 3.", found[0].Message)
	assert.Equal(t, "Add a rest day after day 3", found[0].Action.Label)
}

// days builds stages from a pattern of R (riding) and - (rest), end to end.
func days(pattern string) []alerts.Stage {
	stages := []alerts.Stage{}
	at := base
	for _, c := range pattern {
		if c == '-' {
			stages = append(stages, rest(at))
			continue
		}
		s := ride(at, 50, 300)
		stages = append(stages, s)
		at = s.End
	}
	return stages
}
