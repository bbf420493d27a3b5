package main

import (
	"fmt"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// memoryReads is the trips' count of how their hot reads were answered
// (cairn_trips_memory_reads_total), summed over the servers: by memory
// (digest, get_trip, list_trips) and outcome. It tells a read that grew
// costly with the trips because it missed memory from one that did not.
type memoryReads map[memoryOutcome]float64

type memoryOutcome struct{ memory, outcome string }

// memoryFamily is the trips' count of their hot reads by how they were
// answered.
const memoryFamily = "cairn_trips_memory_reads_total"

// add adds one page's counts.
func (m memoryReads) add(families map[string]*dto.MetricFamily) {
	for _, metric := range families[memoryFamily].GetMetric() {
		var key memoryOutcome
		for _, l := range metric.GetLabel() {
			switch l.GetName() {
			case "memory":
				key.memory = l.GetValue()
			case "outcome":
				key.outcome = l.GetValue()
			}
		}
		m[key] += metric.GetCounter().GetValue()
	}
}

// since is what was counted after before.
func (m memoryReads) since(before memoryReads) memoryReads {
	out := memoryReads{}
	for k, v := range m {
		out[k] = v - before[k]
	}
	return out
}

// describe words each memory's outcomes as shares of its lookups; "" when
// nothing was counted.
func (m memoryReads) describe() string {
	var parts []string
	for _, mem := range []struct {
		name     string
		outcomes []string
	}{{"digest", []string{"held", "checked", "read"}}, {"get_trip", []string{"kept", "built"}}, {"list_trips", []string{"kept", "built"}}} {
		total := 0.0
		for _, o := range mem.outcomes {
			total += m[memoryOutcome{mem.name, o}]
		}
		if total == 0 {
			continue
		}
		shares := make([]string, len(mem.outcomes))
		for i, o := range mem.outcomes {
			shares[i] = fmt.Sprintf("%s %.1f %%", o, 100*m[memoryOutcome{mem.name, o}]/total)
		}
		parts = append(parts, fmt.Sprintf("%s %.0f (%s)", mem.name, total, strings.Join(shares, ", ")))
	}
	return strings.Join(parts, "; ")
}
