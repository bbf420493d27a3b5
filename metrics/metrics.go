// Package metrics holds Prometheus series and serves them. The framework
// records its own (requests, guard refusals, jobs) on the registry of each
// application; a module counts what only it knows on the process-wide
// Default registry, from a package variable:
//
//	var refusals = metrics.NewCounter("cairn_ssrf_refusals_total",
//		"Outbound fetches refused by the address rules, by reason.", "reason")
//
//	refusals.Inc("private_address")
//
// Both are served together on the metrics listener (metrics_addr), never on
// the public API.
package metrics

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"regexp"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
)

// Registry is a set of series.
type Registry struct{ reg *prometheus.Registry }

// New returns an empty registry.
func New() *Registry { return &Registry{reg: prometheus.NewRegistry()} }

// Default is the process-wide registry: the Go runtime's and the process's
// series, and what modules count with NewCounter.
//
// Beside the runtime's default series it gives go_sched_latencies_seconds:
// how long goroutines waited, runnable, for a CPU. On a process short of
// CPU that wait, not the handlers' own time, is where requests' tail goes.
var Default = func() *Registry {
	r := New()
	r.reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(schedLatencies)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return r
}()

// schedLatencies is the runtime's histogram of goroutines' waits to run.
var schedLatencies = collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/sched/latencies:seconds$`)}

// NewCounter registers a counter on Default, or returns the one already
// registered under name: what a module declares as a package variable.
func NewCounter(name, help string, labels ...string) *Counter {
	return Default.Counter(name, help, labels...)
}

// Counter is a monotonic count, by label values.
type Counter struct{ vec *prometheus.CounterVec }

// Inc adds one to the count of the given label values, one per label.
func (c *Counter) Inc(values ...string) { c.vec.WithLabelValues(values...).Inc() }

// Add adds v (not negative) to the count of the given label values.
func (c *Counter) Add(v float64, values ...string) { c.vec.WithLabelValues(values...).Add(v) }

// With is the series of the given label values, looked up once: for a
// count made on every request, where looking the labels up again at each
// call would cost more than the count.
func (c *Counter) With(values ...string) Series { return Series{c.vec.WithLabelValues(values...)} }

// Series is one series of a Counter.
type Series struct{ c prometheus.Counter }

// Inc adds one. The zero Series counts nothing.
func (s Series) Inc() {
	if s.c != nil {
		s.c.Inc()
	}
}

// Value is the count so far.
func (s Series) Value() float64 {
	var m dto.Metric
	if s.c == nil || s.c.Write(&m) != nil {
		return 0
	}
	return m.GetCounter().GetValue()
}

// Histogram counts observations in buckets, by label values.
type Histogram struct{ vec *prometheus.HistogramVec }

// Observe records one value (seconds, for a duration).
func (h *Histogram) Observe(v float64, values ...string) { h.vec.WithLabelValues(values...).Observe(v) }

// Counter registers a counter, or returns the one already registered under
// the same name. An invalid name or a clash with another kind of series
// panics: names are constants, so that is a programming error found at start.
func (r *Registry) Counter(name, help string, labels ...string) *Counter {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	return &Counter{vec: register(r, vec)}
}

// Histogram registers a histogram with the given buckets (nil: Prometheus'
// default, from 5 ms to 10 s), or returns the one already registered.
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) *Histogram {
	vec := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	return &Histogram{vec: register(r, vec)}
}

// Pool publishes a database pool's connections as go_sql_* series named
// by pool: open, in use and idle, and how often and how long a query
// waited for a connection (every one held), which is what to watch before
// raising the pool's size or the database's.
func (r *Registry) Pool(name string, db *sql.DB) {
	register(r, collectors.NewDBStatsCollector(db, name))
}

// Register adds a collector of one's own (a series read when scraped).
func (r *Registry) Register(c prometheus.Collector) error { return r.reg.Register(c) }

func register[C prometheus.Collector](r *Registry, c C) C {
	err := r.reg.Register(c)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing
		}
	}
	if err != nil {
		panic("metrics: " + err.Error())
	}
	return c
}

// Handler serves the series of every registry given, in the Prometheus
// text format.
func Handler(regs ...*Registry) http.Handler {
	gs := make(prometheus.Gatherers, len(regs))
	for i, r := range regs {
		gs[i] = r.reg
	}
	return promhttp.HandlerFor(gs, promhttp.HandlerOpts{})
}

// Sampled registers a gauge read when scraped, for what is counted
// elsewhere (rows in a table): read answers one value per value of label.
// When read fails, the gauge is left out of that scrape.
func (r *Registry) Sampled(name, help, label string, read func(ctx context.Context) (map[string]float64, error)) {
	register(r, &sampled{desc: prometheus.NewDesc(name, help, []string{label}, nil), read: read})
}

// SampleTimeout bounds one read of a Sampled gauge.
const SampleTimeout = 2 * time.Second

type sampled struct {
	desc *prometheus.Desc
	read func(ctx context.Context) (map[string]float64, error)
}

func (s *sampled) Describe(ch chan<- *prometheus.Desc) { ch <- s.desc }

func (s *sampled) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), SampleTimeout)
	defer cancel()
	values, err := s.read(ctx)
	if err != nil {
		return
	}
	for k, v := range values {
		ch <- prometheus.MustNewConstMetric(s.desc, prometheus.GaugeValue, v, k)
	}
}

// SSRFRefusals counts outbound requests a product refused by its address
// rules (a private address, another host or port, a redirect elsewhere),
// by a short fixed reason: what the outbound client (package outbound)
// increments with SSRFRefusals.Inc(reason).
var SSRFRefusals = NewCounter("cairn_ssrf_refusals_total",
	"Outbound requests refused by the address rules (SSRF), by reason.", "reason")
