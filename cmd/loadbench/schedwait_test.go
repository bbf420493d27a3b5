package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// exposition is a metrics page with the scheduler's histogram, counts by
// bucket (cumulative, as Prometheus writes them).
func exposition(fast, mid, slow, over float64) string {
	return strings.Join([]string{
		"# TYPE go_sched_latencies_seconds histogram",
		`go_sched_latencies_seconds_bucket{le="0.0009175039999999999"} ` + num(fast),
		`go_sched_latencies_seconds_bucket{le="0.010485759999999998"} ` + num(fast+mid),
		`go_sched_latencies_seconds_bucket{le="0.11744051199999998"} ` + num(fast+mid+slow),
		`go_sched_latencies_seconds_bucket{le="+Inf"} ` + num(fast+mid+slow+over),
		"go_sched_latencies_seconds_count " + num(fast+mid+slow+over),
		`go_goroutines 12`,
	}, "\n") + "\n"
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// The waits of a run are the later counts less the earlier, summed over
// the servers, read by bucket.
func TestSchedWaitsOfARun(t *testing.T) {
	t.Parallel()
	before, after := schedWaits{}, schedWaits{}
	require.NoError(t, before.add(strings.NewReader(exposition(100, 0, 0, 0))))
	require.NoError(t, before.add(strings.NewReader(exposition(50, 0, 0, 0))))
	require.NoError(t, after.add(strings.NewReader(exposition(1000, 50, 0, 0))))
	require.NoError(t, after.add(strings.NewReader(exposition(950, 30, 20, 0))))
	run := after.since(before)

	p99, n := run.within(0.99)
	require.Equal(t, float64(1900), n, "1,800 fast, 80 of up to 10.5 ms and 20 longer, both servers")
	require.Equal(t, 117441*time.Microsecond, p99.Round(time.Microsecond), "the 99th wait ends in the 117 ms bucket")
	p95, _ := run.within(0.95)
	require.Equal(t, 10486*time.Microsecond, p95.Round(time.Microsecond))
	share, bound := run.beyond(10 * time.Millisecond)
	require.InDelta(t, 20.0/1900, share, 1e-9)
	require.Equal(t, 10486*time.Microsecond, bound.Round(time.Microsecond))

	require.Nil(t, run.since(nil), "no reading before: no figure")
	bad := schedWaits{}
	require.Error(t, bad.add(strings.NewReader(`go_sched_latencies_seconds_bucket{le="0.1"}`)))
}
