package planner_test

import (
	"encoding/json"

	"cairn.dev/cairn/modules/trips"
)

// statuses is every computation's status: the route's, the day split's,
// and one for all the enrichments.
func statuses(route, stages, rest string) map[string]any {
	out := map[string]any{}
	for _, n := range trips.Computations {
		out[n] = rest
	}
	out[trips.ComputeRoute], out[trips.ComputeStages] = route, stages
	return out
}

// statusJSON is statuses as JSON, with one enrichment's status changed.
func statusJSON(route, stages, rest string, set ...string) string {
	m := statuses(route, stages, rest)
	for i := 0; i+1 < len(set); i += 2 {
		m[set[i]] = set[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}
