// Package jobs runs background work as durable jobs on River, a job queue
// kept in the same database (PostgreSQL or SQLite): a job survives a
// restart, any replica may pick it up, and it is enqueued in the transaction
// that makes it necessary. Modules contribute their workers as Work.
package jobs

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/storage"
)

// Work is what a module contributes to the queue: its workers and the
// jobs it wants run periodically. The application collects every Work
// provided in the fx group "jobs".
type Work struct {
	Register func(w *river.Workers)
	Periodic []*river.PeriodicJob
}

// PurgeArgs is the hourly clean-up of what the guards remember: idempotency
// keys past their day, confirmation tokens past their expiry.
type PurgeArgs struct{}

// Kind implements river.JobArgs.
func (PurgeArgs) Kind() string { return "guard_purge" }

// Purger forgets what the guards no longer need.
type Purger interface {
	Purge(ctx context.Context) (int64, error)
}

type purgeWorker struct {
	river.WorkerDefaults[PurgeArgs]
	purgers []Purger
}

// Work runs every purger.
func (w *purgeWorker) Work(ctx context.Context, _ *river.Job[PurgeArgs]) error {
	for _, p := range w.purgers {
		if _, err := p.Purge(ctx); err != nil {
			return err
		}
	}
	return nil
}

// PurgeEvery is how often the purge runs; one replica, the queue's leader,
// schedules it.
const PurgeEvery = time.Hour

// Queue is the River client and what it runs.
type Queue struct {
	// gate holds every job before it runs while Hold has it: a test that
	// measures what one call wrote holds the queue, so that no background
	// work writes meanwhile.
	gate   sync.RWMutex
	client *river.Client[*sql.Tx]
	driver riverdriver.Driver[*sql.Tx]
	pool   *sql.DB // River's own, on SQLite
	db     *sql.DB // where river_job is, for Counts
}

// Defaults of Config's timeouts: the framework's work takes seconds, so a
// job running past DefaultTimeout is cancelled and retried, and one still
// marked running DefaultRescueAfter after it started lost its process.
const (
	DefaultTimeout     = time.Minute
	DefaultRescueAfter = DefaultTimeout + 30*time.Second
)

// Config tunes the queue.
type Config struct {
	Workers      int           // concurrent computations in this process
	PollInterval time.Duration // how often to look for work when not notified
	Purgers      []Purger      // run every PurgeEvery
	// Timeout bounds one attempt of a job (0: DefaultTimeout); a worker
	// whose work needs longer says so with its Timeout method.
	Timeout time.Duration
	// RescueAfter is how long a job may stay running before it is taken
	// as stuck (its process died) and retried by whichever process is
	// alive; 0: DefaultRescueAfter, or Timeout + 30 s when that is later.
	// It must exceed Timeout. The queue's
	// leader looks for stuck jobs every 30 seconds, so a killed process's
	// job is retried between RescueAfter and RescueAfter + 30 s after it
	// started (a worker's own longer timeout postpones it to past that).
	RescueAfter time.Duration
	// Observe, when set, is told when an attempt of a job ends: its kind,
	// how long it ran and its error (nil when it succeeded).
	Observe func(kind string, took time.Duration, err error)
}

// Open prepares the queue on the same database as db. On SQLite, River gets
// a pool of one connection of its own on the same file, as its driver asks.
func Open(db *bun.DB, engine storage.Engine, sqlitePath string) (*Queue, error) {
	q := &Queue{}
	switch engine {
	case storage.SQLite:
		pool, err := storage.OpenSQLitePool(sqlitePath)
		if err != nil {
			return nil, err
		}
		pool.SetMaxOpenConns(1)
		q.pool = pool
		q.driver = riversqlite.New(pool)
	default:
		q.driver = riverdatabasesql.New(db.DB)
	}
	q.db = db.DB
	if q.pool != nil {
		q.db = q.pool
	}
	return q, nil
}

// Counts reports how many jobs are in each state (available, scheduled,
// running, retryable, completed, discarded, cancelled), for metrics: the
// queue's depth is what waits to run.
func (q *Queue) Counts(ctx context.Context) (map[string]int64, error) {
	rows, err := q.db.QueryContext(ctx, "SELECT state, count(*) FROM river_job GROUP BY state")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var state string
		var n int64
		if err := rows.Scan(&state, &n); err != nil {
			return nil, err
		}
		out[state] = n
	}
	return out, rows.Err()
}

// Migrate applies River's own migrations.
func (q *Queue) Migrate(ctx context.Context) error {
	m, err := rivermigrate.New(q.driver, nil)
	if err != nil {
		return err
	}
	_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	return err
}

// Start creates the River client with every contributed worker, and the
// framework's own purge, and starts it.
func (q *Queue) Start(ctx context.Context, cfg Config, work []Work, log *slog.Logger) error {
	workers := river.NewWorkers()
	river.AddWorker(workers, &purgeWorker{purgers: cfg.Purgers})
	periodic := []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(PurgeEvery),
		func() (river.JobArgs, *river.InsertOpts) { return PurgeArgs{}, nil },
		&river.PeriodicJobOpts{ID: "guard_purge", RunOnStart: true})}
	for _, w := range work {
		if w.Register != nil {
			w.Register(workers)
		}
		periodic = append(periodic, w.Periodic...)
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = max(DefaultRescueAfter, cfg.Timeout+30*time.Second)
	}
	if cfg.RescueAfter <= cfg.Timeout {
		return fmt.Errorf("job queue: a job must be rescued after (%s) more than its timeout (%s)", cfg.RescueAfter, cfg.Timeout)
	}
	middleware := []rivertype.Middleware{river.WorkerMiddlewareFunc(func(ctx context.Context, _ *rivertype.JobRow, work func(context.Context) error) error {
		q.gate.RLock()
		defer q.gate.RUnlock()
		return work(ctx)
	})}
	if cfg.Observe != nil {
		middleware = append(middleware, river.WorkerMiddlewareFunc(func(ctx context.Context, job *rivertype.JobRow, work func(context.Context) error) error {
			start := time.Now()
			err := work(ctx)
			cfg.Observe(job.Kind, time.Since(start), err)
			return err
		}))
	}
	client, err := river.NewClient(q.driver, &river.Config{
		Queues:               map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}},
		Workers:              workers,
		FetchPollInterval:    cfg.PollInterval,
		FetchCooldown:        min(cfg.PollInterval, 100*time.Millisecond),
		JobTimeout:           cfg.Timeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		Middleware:           middleware,
		PeriodicJobs:         periodic,
		Logger:               log,
	})
	if err != nil {
		return fmt.Errorf("job queue: %w", err)
	}
	q.client = client
	return client.Start(ctx)
}

// Hold waits for the jobs running in this process to finish and keeps any
// other from starting until release is called: what a call writes can
// then be told from what background work writes. Jobs are still fetched
// and wait; one held past its timeout is retried as any timed-out job.
func (q *Queue) Hold() (release func()) {
	q.gate.Lock()
	return q.gate.Unlock
}

// Stop stops fetching, lets running jobs finish until ctx ends, then cancels them.
func (q *Queue) Stop(ctx context.Context) error {
	if q.client == nil {
		return nil
	}
	// Half of the time left lets running jobs finish; the rest cancels them
	// (River retries them later, on whichever process is alive).
	grace := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		grace, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/2))
		defer cancel()
	}
	err := q.client.Stop(grace)
	if err != nil {
		err = q.client.StopAndCancel(ctx)
	}
	if q.pool != nil {
		_ = q.pool.Close()
	}
	return err
}

// Insert enqueues jobs, in the transaction carried by ctx when there is
// one, so they exist exactly when what they depend on commits.
func (q *Queue) Insert(ctx context.Context, args ...river.JobArgs) error {
	if q.client == nil {
		return fmt.Errorf("job queue is not started")
	}
	params := make([]river.InsertManyParams, len(args))
	for i, a := range args {
		params[i] = river.InsertManyParams{Args: a}
	}
	if tx, ok := storage.SQLTx(ctx); ok {
		_, err := q.client.InsertManyTx(ctx, tx, params)
		return err
	}
	_, err := q.client.InsertMany(ctx, params)
	return err
}

// Validate reports what River's migrations still need, empty when none.
func (q *Queue) Validate(ctx context.Context) ([]string, error) {
	m, err := rivermigrate.New(q.driver, nil)
	if err != nil {
		return nil, err
	}
	res, err := m.Validate(ctx, nil)
	if err != nil {
		return nil, err
	}
	return res.Messages, nil
}
