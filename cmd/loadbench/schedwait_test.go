package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// exposition is a metrics page with the scheduler's histogram, counts by
// bucket (cumulative, as Prometheus writes them), and the trips' digest
// lookups: held, read.
func exposition(fast, mid, slow, over float64, lookups ...float64) string {
	lines := []string{
		"# TYPE go_sched_latencies_seconds histogram",
		`go_sched_latencies_seconds_bucket{le="0.0009175039999999999"} ` + num(fast),
		`go_sched_latencies_seconds_bucket{le="0.010485759999999998"} ` + num(fast+mid),
		`go_sched_latencies_seconds_bucket{le="0.11744051199999998"} ` + num(fast+mid+slow),
		`go_sched_latencies_seconds_bucket{le="+Inf"} ` + num(fast+mid+slow+over),
		"go_sched_latencies_seconds_count " + num(fast+mid+slow+over),
		`go_goroutines 12`,
	}
	if len(lookups) == 2 {
		lines = append(lines, "# TYPE cairn_trips_memory_reads_total counter",
			`cairn_trips_memory_reads_total{memory="digest",outcome="held"} `+num(lookups[0]),
			`cairn_trips_memory_reads_total{memory="digest",outcome="read"} `+num(lookups[1]))
	}
	return strings.Join(lines, "\n") + "\n"
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// The waits of a run are the later counts less the earlier, summed over
// the servers, read by bucket.
func TestSchedWaitsOfARun(t *testing.T) {
	t.Parallel()
	before, after := scrapedPages(t, exposition(100, 0, 0, 0), exposition(50, 0, 0, 0)),
		scrapedPages(t, exposition(1000, 50, 0, 0), exposition(950, 30, 20, 0))
	run := after.since(before).waits

	p99, n := run.within(0.99)
	require.Equal(t, float64(1900), n, "1,800 fast, 80 of up to 10.5 ms and 20 longer, both servers")
	require.Equal(t, 117441*time.Microsecond, p99.Round(time.Microsecond), "the 99th wait ends in the 117 ms bucket")
	p95, _ := run.within(0.95)
	require.Equal(t, 10486*time.Microsecond, p95.Round(time.Microsecond))
	share, bound := run.beyond(10 * time.Millisecond)
	require.InDelta(t, 20.0/1900, share, 1e-9)
	require.Equal(t, 10486*time.Microsecond, bound.Round(time.Microsecond))

	require.Nil(t, after.since(nil), "no reading before: no figure")
	bad := &scraped{waits: schedWaits{}, memory: memoryReads{}}
	require.Error(t, bad.add(strings.NewReader(`go_sched_latencies_seconds_bucket{le="0.1"}`)))
}

// scrapedPages is what scrape reads of servers answering pages.
func scrapedPages(t *testing.T, pages ...string) *scraped {
	t.Helper()
	s := &scraped{waits: schedWaits{}, memory: memoryReads{}}
	for _, p := range pages {
		require.NoError(t, s.add(strings.NewReader(p)))
	}
	return s
}

// The lookups of a run are the later counts less the earlier, summed over
// the servers, as shares of each memory's lookups.
func TestMemoryReadsOfARun(t *testing.T) {
	t.Parallel()
	before := scrapedPages(t, exposition(1, 0, 0, 0, 100, 10), exposition(1, 0, 0, 0, 50, 40))
	after := scrapedPages(t, exposition(1, 0, 0, 0, 400, 60), exposition(1, 0, 0, 0, 350, 90))
	run := after.since(before).memory
	require.Equal(t, memoryReads{{"digest", "held"}: 600, {"digest", "read"}: 100}, run)
	require.Equal(t, "digest 700 (held 85.7 %, checked 0.0 %, read 14.3 %)", run.describe())
	require.Empty(t, scrapedPages(t, exposition(1, 0, 0, 0)).memory.describe(), "a server that counts nothing: no line")
}
