package planner_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/modules/mail/mailtest"
	"cairn.dev/cairn/planner/plannertest"
)

// BenchmarkSignInRequestLinkTiming measures what POST /auth/request-link
// tells by its time: each iteration asks once for a known person's address
// and once for an unknown one (each address and client address new, so no
// limit is reached; each kind first in half the pairs), mail going to an
// SMTP server. It reports the median
// time of each kind and how often the known request was the slower of its
// pair: 50 % is a coin toss, 100 % tells every account apart. Run with
// -benchtime=200x for 200 requests of each kind.
func BenchmarkSignInRequestLinkTiming(b *testing.B) {
	smtp := mailtest.Start(b)
	a := plannertest.New(b, doortest.WithSMTP(smtp))
	known := make([]string, b.N)
	for i := range known {
		known[i] = fmt.Sprintf("known-%d@example.com", i)
		a.Token(b, known[i])
	}
	ask := func(email string) time.Duration {
		start := time.Now()
		res := a.Do(b, http.MethodPost, "/auth/request-link", "", map[string]any{"email": email}, "X-Forwarded-For", doortest.ClientAddress())
		took := time.Since(start)
		if res.Status != http.StatusOK {
			b.Fatalf("%d: %s", res.Status, res.Body)
		}
		return took
	}
	var k, u []time.Duration
	slower := 0
	b.ResetTimer()
	for i := range b.N {
		var kt, ut time.Duration
		if i%2 == 0 { // each kind first in half the pairs, so the order tells nothing
			kt = ask(known[i])
			ut = ask(fmt.Sprintf("unknown-%d@example.com", i))
		} else {
			ut = ask(fmt.Sprintf("unknown-%d@example.com", i))
			kt = ask(known[i])
		}
		k, u = append(k, kt), append(u, ut)
		if kt > ut {
			slower++
		}
	}
	b.StopTimer()
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds())
	}
	b.ReportMetric(median(k), "known-median-µs")
	b.ReportMetric(median(u), "unknown-median-µs")
	b.ReportMetric(100*float64(slower)/float64(b.N), "known-slower-%")
}
