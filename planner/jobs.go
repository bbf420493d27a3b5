package planner

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"cairn.dev/cairn/app/jobs"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/storage"
)

// MaxAttempts is one try and three retries (1 s, 2 s, 4 s apart), then failed.
const MaxAttempts = 4

// ComputeArgs names one computation of one trip generation.
type ComputeArgs struct {
	TripID     string `json:"trip_id"`
	Name       string `json:"name"`
	Generation int64  `json:"generation"`
}

// Kind implements river.JobArgs.
func (ComputeArgs) Kind() string { return "trip_compute" }

// InsertOpts implements river.JobArgsWithInsertOpts.
func (ComputeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: MaxAttempts, Queue: river.QueueDefault}
}

type computeWorker struct {
	river.WorkerDefaults[ComputeArgs]
	pipeline *trips.Pipeline
}

// Work runs the computation.
func (w *computeWorker) Work(ctx context.Context, job *river.Job[ComputeArgs]) error {
	err := w.pipeline.Run(ctx, trips.Job{
		TripID: job.Args.TripID, Name: job.Args.Name, Generation: job.Args.Generation,
		Attempt: job.Attempt, MaxAttempts: job.MaxAttempts,
	})
	var final *trips.Final
	if errors.As(err, &final) {
		return river.JobCancel(err) // already settled as failed: nothing to retry
	}
	return err
}

// NextRetry spaces retries 1 s, 2 s, 4 s.
func (w *computeWorker) NextRetry(job *river.Job[ComputeArgs]) time.Time {
	return time.Now().Add(time.Duration(1<<(job.Attempt-1)) * time.Second)
}

// computeWork contributes the trips' computations to the job queue.
func computeWork(p *trips.Pipeline) jobs.Work {
	return jobs.Work{Register: func(w *river.Workers) { river.AddWorker(w, &computeWorker{pipeline: p}) }}
}

// dispatcher is the trips' Dispatcher over the framework's queue.
type dispatcher struct{ q *jobs.Queue }

var _ trips.Dispatcher = dispatcher{}

// Dispatch enqueues computations in the transaction carried by ctx, if any.
func (d dispatcher) Dispatch(ctx context.Context, tripID string, generation int64, names ...string) error {
	args := make([]river.JobArgs, len(names))
	for i, n := range names {
		args[i] = ComputeArgs{TripID: tripID, Name: n, Generation: generation}
	}
	return d.q.Insert(ctx, args...)
}

func provideDispatcher(q *jobs.Queue) trips.Dispatcher { return dispatcher{q: q} }

// accountTrips is the trips' part of an account, with the queued
// computations naming those trips: the account's deletion forgets both.
type accountTrips struct {
	trips.AccountData
	db *bun.DB
}

func provideAccountTrips(s *trips.Store, db *bun.DB) accounts.Holder {
	return accountTrips{AccountData: trips.NewAccountData(s), db: db}
}

// Forget deletes the job rows naming the user's trips, then the trips, in
// the transaction ctx carries. A computation running meanwhile finds its
// trip gone and ends.
func (h accountTrips) Forget(ctx context.Context, userID string) error {
	tripID := "json_extract(args, '$.trip_id')" // River keeps SQLite's args as JSONB
	if h.db.Dialect().Name() == dialect.PG {
		tripID = "args->>'trip_id'"
	}
	if _, err := storage.Conn(ctx, h.db).NewDelete().TableExpr("river_job").
		Where("kind = ? AND "+tripID+" IN (SELECT id FROM trips WHERE user_id = ?)", ComputeArgs{}.Kind(), userID).Exec(ctx); err != nil {
		return err
	}
	return h.AccountData.Forget(ctx, userID)
}
