package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"go.uber.org/fx"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/jobs"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/metrics"
	"cairn.dev/cairn/registry"
)

// The framework's series, on the application's own metrics registry.
type observed struct {
	requests  *metrics.Counter
	latency   *metrics.Histogram
	refusals  *metrics.Counter
	fallbacks *metrics.Counter
	jobRuns   *metrics.Histogram
	jobFails  *metrics.Counter
}

// jobStates are River's job states, each always published (0 when none).
var jobStates = []string{"available", "scheduled", "pending", "retryable", "running", "completed", "cancelled", "discarded"}

func provideMetrics(q *jobs.Queue, db *bun.DB) (*metrics.Registry, *observed) {
	reg := metrics.New()
	reg.Pool("cairn", db.DB)
	o := &observed{
		requests: reg.Counter("cairn_requests_total",
			"Calls of an operation, by face, operation and outcome (ok, or the problem type's slug).", "face", "operation", "outcome"),
		latency: reg.Histogram("cairn_request_duration_seconds",
			"Time to judge and handle a call, by face and operation (an event stream counts until it starts).", nil, "face", "operation"),
		refusals: reg.Counter("cairn_guard_refusals_total",
			"Calls refused, by the guard that refused them and the problem type's slug.", "guard", "kind"),
		fallbacks: reg.Counter("cairn_rate_limit_fallbacks_total",
			"Calls counted in process because the shared rate limiter (Redis) could not be reached, by operation.", "operation"),
		jobRuns: reg.Histogram("cairn_job_duration_seconds",
			"Time one attempt of a background job ran, by kind and outcome (ok or failed).",
			[]float64{.01, .05, .1, .5, 1, 2, 5, 10, 30, 60, 300}, "kind", "outcome"),
		jobFails: reg.Counter("cairn_job_failures_total",
			"Attempts of a background job that failed (they are retried until their attempts run out), by kind.", "kind"),
	}
	reg.Sampled("cairn_jobs", "Background jobs by state; available, scheduled and retryable ones wait to run.", "state",
		func(ctx context.Context) (map[string]float64, error) {
			counts, err := q.Counts(ctx)
			if err != nil {
				return nil, err
			}
			out := make(map[string]float64, len(jobStates))
			for _, s := range jobStates {
				out[s] = 0
			}
			for s, n := range counts {
				out[s] = float64(n)
			}
			return out, nil
		})
	return reg, o
}

var _ guards.Observer = (*observed)(nil)

// Refused implements guards.Observer.
func (o *observed) Refused(_ *registry.Call, guard string, e *registry.Error) {
	o.refusals.Inc(guard, e.Kind.String())
}

// Ran implements guards.Observer.
func (o *observed) Ran(c *registry.Call, err error, took time.Duration) {
	outcome := "ok"
	switch {
	case err != nil:
		outcome = registry.AsError(err).Kind.String()
	case c.Confirmation != nil:
		outcome = "confirmation-required"
	}
	o.requests.Inc(string(c.Face), c.Op.ID, outcome)
	o.latency.Observe(took.Seconds(), string(c.Face), c.Op.ID)
}

// job is jobs.Config.Observe.
func (o *observed) job(kind string, took time.Duration, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "failed"
		o.jobFails.Inc(kind)
	}
	o.jobRuns.Observe(took.Seconds(), kind, outcome)
}

// fallbackNotice counts every call the rate limit counts in process, and
// logs the outage at most once a minute rather than once a call.
type fallbackNotice struct {
	log    *slog.Logger
	counts *metrics.Counter
	last   atomic.Int64
}

func (n *fallbackNotice) note(ctx context.Context, c *registry.Call, err error) {
	n.counts.Inc(c.Op.ID)
	now, last := time.Now().UnixNano(), n.last.Load()
	if now-last >= int64(time.Minute) && n.last.CompareAndSwap(last, now) {
		n.log.WarnContext(ctx, "rate limits are counted in process: the shared limiter (Redis) cannot be reached", "err", err)
	}
}

type metricsParams struct {
	fx.In
	LC       fx.Lifecycle
	Cfg      config.Config
	Log      *slog.Logger
	Registry *metrics.Registry
	Server   *Server
}

// serveMetrics serves /metrics on a listener of its own (metrics_addr),
// never on the public API: the application's series and the process's.
func serveMetrics(p metricsParams) {
	if p.Cfg.MetricsAddr == "" {
		return
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler(p.Registry, metrics.Default))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	p.LC.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", p.Cfg.MetricsAddr)
			if err != nil {
				return fmt.Errorf("listen on metrics_addr %s: %w", p.Cfg.MetricsAddr, err)
			}
			p.Server.metrics = ln
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					p.Log.Error("metrics listener stopped", "err", err)
				}
			}()
			p.Log.Info("metrics listening", "url", p.Server.MetricsURL())
			return nil
		},
		OnStop: func(ctx context.Context) error { return srv.Shutdown(ctx) },
	})
}

// MetricsURL is where /metrics answers once started, "" without a
// metrics listener.
func (s *Server) MetricsURL() string {
	if s.metrics == nil {
		return ""
	}
	return "http://" + s.metrics.Addr().String() + "/metrics"
}
