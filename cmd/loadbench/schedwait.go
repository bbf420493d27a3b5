package main

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// schedWaits is the runtime's histogram of goroutines' waits for a CPU
// (go_sched_latencies_seconds on the metrics listener), summed over the
// servers: by each bucket's upper bound, how many waits ended within it.
// It tells a tail spent queued for the servers' CPU from one spent in the
// handlers.
type schedWaits map[float64]float64

// scraped is what a run reads of the servers' metrics pages, summed over
// the servers.
type scraped struct {
	waits  schedWaits
	memory memoryReads
}

// scrape reads the page at each metrics URL; nil when one cannot be read
// (the lines that would tell it are then left out).
func scrape(urls []string) *scraped {
	if len(urls) == 0 {
		return nil
	}
	out := &scraped{waits: schedWaits{}, memory: memoryReads{}}
	for _, u := range urls {
		res, err := http.Get(u)
		if err != nil {
			return nil
		}
		err = out.add(res.Body)
		res.Body.Close()
		if err != nil {
			return nil
		}
	}
	return out
}

// add adds one server's page.
func (s *scraped) add(r io.Reader) error {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return err
	}
	s.waits.add(families)
	s.memory.add(families)
	return nil
}

// since is what was counted after before: nil without both readings.
func (s *scraped) since(before *scraped) *scraped {
	if s == nil || before == nil {
		return nil
	}
	return &scraped{waits: s.waits.since(before.waits), memory: s.memory.since(before.memory)}
}

// schedFamily is the runtime's histogram of goroutines' waits for a CPU.
const schedFamily = "go_sched_latencies_seconds"

// add adds the cumulative buckets of one page's families.
func (w schedWaits) add(families map[string]*dto.MetricFamily) {
	for _, m := range families[schedFamily].GetMetric() {
		for _, b := range m.GetHistogram().GetBucket() { // +Inf included
			w[b.GetUpperBound()] += float64(b.GetCumulativeCount())
		}
	}
}

// since is the waits counted after before.
func (w schedWaits) since(before schedWaits) schedWaits {
	if w == nil || before == nil {
		return nil
	}
	out := schedWaits{}
	for bound, n := range w {
		out[bound] = n - before[bound]
	}
	return out
}

// within is the bucket bound within which share (0 to 1) of the waits
// ended, and how many waits there were.
func (w schedWaits) within(share float64) (time.Duration, float64) {
	bounds := make([]float64, 0, len(w))
	for b := range w {
		bounds = append(bounds, b)
	}
	slices.Sort(bounds)
	if len(bounds) == 0 {
		return 0, 0
	}
	total := w[bounds[len(bounds)-1]]
	for _, b := range bounds {
		if w[b] >= share*total {
			if math.IsInf(b, 1) {
				return -1, total
			}
			return time.Duration(b * float64(time.Second)), total
		}
	}
	return -1, total
}

// beyond is the share of the waits longer than the first bucket bound at
// or above d, and that bound.
func (w schedWaits) beyond(d time.Duration) (float64, time.Duration) {
	bound := math.Inf(1)
	for b := range w {
		if b >= d.Seconds() && b < bound {
			bound = b
		}
	}
	total := w[math.Inf(1)]
	if total == 0 || math.IsInf(bound, 1) {
		return 0, -1
	}
	return 1 - w[bound]/total, time.Duration(bound * float64(time.Second))
}

// describe words the waits: how many, and the bucket bounds within which
// 99 % and 99.9 % of them ended.
func (w schedWaits) describe() string {
	p99, n := w.within(0.99)
	p999, _ := w.within(0.999)
	word := func(d time.Duration) string {
		if d < 0 {
			return "beyond the last bucket"
		}
		return "≤ " + d.Round(time.Microsecond).String()
	}
	share, bound := w.beyond(10 * time.Millisecond)
	return fmt.Sprintf("%.0f waits; 99 %% %s, 99.9 %% %s; %.2f %% longer than %s",
		n, word(p99), word(p999), 100*share, bound.Round(time.Microsecond))
}
