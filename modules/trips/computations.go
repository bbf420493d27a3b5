package trips

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"cairn.dev/cairn/storage"
)

type computationRow struct {
	bun.BaseModel `bun:"table:computations"`

	TripID     string    `bun:"trip_id,pk"`
	Name       string    `bun:"name,pk"`
	Generation int64     `bun:"generation,pk"`
	Status     string    `bun:"status"`
	Error      *string   `bun:"error"`
	UpdatedAt  time.Time `bun:"updated_at"`
}

// lockTrip reads the trip's generation and statuses, holding its row until
// the transaction ends on PostgreSQL (SQLite transactions hold the whole
// database already), so status updates of one trip are serialised.
func (s *Store) lockTrip(ctx context.Context, tripID string) (*Trip, error) {
	tr := new(Trip)
	q := storage.Conn(ctx, s.db).NewSelect().Model(tr).Column("id", "generation", "computation_status", "completion_announced").Where("id = ?", tripID)
	if s.db.Dialect().Name() == dialect.PG {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		if storage.NoRows(err) {
			return nil, errSuperseded // the trip was deleted: its work writes nothing
		}
		return nil, err
	}
	return tr, nil
}

// current refuses (errSuperseded) when gen is no longer the trip's, or the
// trip is gone; run first in a transaction that writes a computation's
// results, so stale work writes nothing at all.
func (s *Store) current(ctx context.Context, tripID string, gen int64) error {
	tr, err := s.lockTrip(ctx, tripID)
	if err != nil {
		return err
	}
	if tr.Generation != gen {
		return errSuperseded
	}
	return nil
}

// transition sets statuses of generation gen, mirrored on the trip and kept
// in the history. It refuses (errSuperseded) when gen is no longer current.
func (s *Store) transition(ctx context.Context, tripID string, gen int64, set map[string]string) error {
	return storage.Tx{DB: s.db}.InTx(ctx, func(ctx context.Context) error {
		tr, err := s.lockTrip(ctx, tripID)
		if err != nil {
			return err
		}
		if tr.Generation != gen {
			return errSuperseded
		}
		if tr.ComputationStatus == nil {
			tr.ComputationStatus = StatusMap{}
		}
		for name, status := range set {
			tr.ComputationStatus[name] = status
		}
		tr.CompletionAnnounced = tr.CompletionAnnounced && allSettled(tr.ComputationStatus)
		if _, err := storage.Conn(ctx, s.db).NewUpdate().Model(tr).Column("computation_status", "completion_announced").Set(bumpKeeping).WherePK().Exec(ctx); err != nil {
			return err
		}
		s.changed(ctx, tripID)
		return s.record(ctx, tripID, gen, set)
	})
}

// record upserts the history rows of generation gen.
func (s *Store) record(ctx context.Context, tripID string, gen int64, set map[string]string) error {
	now := time.Now().UTC()
	for name, status := range set {
		row := &computationRow{TripID: tripID, Name: name, Generation: gen, Status: status, UpdatedAt: now}
		if _, err := storage.Conn(ctx, s.db).NewInsert().Model(row).
			On("CONFLICT (trip_id, name, generation) DO UPDATE").
			Set("status = EXCLUDED.status").Set("updated_at = EXCLUDED.updated_at").
			Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// recordFailure keeps what get_trip names the failure of computation name
// of generation gen.
func (s *Store) recordFailure(ctx context.Context, tripID string, gen int64, name, failure string) error {
	_, err := storage.Conn(ctx, s.db).NewUpdate().Model((*computationRow)(nil)).Set("error = ?", failure).
		Where("trip_id = ? AND name = ? AND generation = ?", tripID, name, gen).Exec(ctx)
	return err
}

// Failure is what get_trip names the failure of computation name of
// generation gen; "" when none was recorded. Read only for a failed trip.
func (s *Store) Failure(ctx context.Context, tripID string, gen int64, name string) (string, error) {
	var failure []*string
	err := storage.Conn(ctx, s.db).NewSelect().Model((*computationRow)(nil)).Column("error").
		Where("trip_id = ? AND name = ? AND generation = ?", tripID, name, gen).Scan(ctx, &failure)
	if err != nil || len(failure) == 0 || failure[0] == nil {
		return "", err
	}
	return *failure[0], nil
}

// supersede settles the unsettled work of older generations: it will never
// write, since its generation is no longer the trip's.
func (s *Store) supersede(ctx context.Context, tripID string, current int64) error {
	_, err := storage.Conn(ctx, s.db).NewUpdate().Model((*computationRow)(nil)).
		Set("status = ?", StatusSuperseded).Set("updated_at = ?", time.Now().UTC()).
		Where("trip_id = ? AND generation < ? AND status IN (?, ?)", tripID, current, StatusPending, StatusRunning).
		Exec(ctx)
	return err
}

// SaveRoute stores the imported route and fills the trip's title (when it
// has none) and source type.
func (s *Store) SaveRoute(ctx context.Context, rec *RouteRecord) error {
	db := storage.Conn(ctx, s.db)
	if _, err := db.NewDelete().Model((*RouteRecord)(nil)).Where("trip_id = ?", rec.TripID).Exec(ctx); err != nil {
		return err
	}
	if _, err := db.NewInsert().Model(rec).Exec(ctx); err != nil {
		return err
	}
	q := db.NewUpdate().Model((*Trip)(nil)).Set("source_type = ?", rec.SourceType).Set(bumpKeeping).Where("id = ?", rec.TripID)
	if rec.Title != nil {
		q = q.Set("title = COALESCE(title, ?)", *rec.Title)
	}
	_, err := q.Exec(ctx)
	s.changed(ctx, rec.TripID)
	return err
}

// Route loads the stored route of a trip.
func (s *Store) Route(ctx context.Context, tripID string) (*RouteRecord, error) {
	rec := new(RouteRecord)
	err := storage.Conn(ctx, s.db).NewSelect().Model(rec).Where("trip_id = ?", tripID).Scan(ctx)
	if storage.NoRows(err) {
		return nil, &Permanent{Code: "NO_ROUTE", Err: errors.New("the trip has no imported route")}
	}
	return rec, err
}

// ReplaceStages stores the days of a trip in place of the previous ones; a
// trip with at least two days is ready.
func (s *Store) ReplaceStages(ctx context.Context, tripID string, stages []Stage) error {
	db := storage.Conn(ctx, s.db)
	if _, err := db.NewDelete().Model((*Stage)(nil)).Where("trip_id = ?", tripID).Exec(ctx); err != nil {
		return err
	}
	if len(stages) > 0 {
		if _, err := db.NewInsert().Model(&stages).Exec(ctx); err != nil {
			return err
		}
	}
	status := StatusDraft
	if len(stages) >= 2 {
		status = StatusReady
	}
	_, err := db.NewUpdate().Model((*Trip)(nil)).Set("status = ?", status).Set(bumpRevision).Where("id = ?", tripID).Exec(ctx)
	s.changed(ctx, tripID)
	return err
}

// TripAndDays loads a trip and its days, in order: what the enrichments,
// the files, the share page and a replayed upload read.
func (s *Store) TripAndDays(ctx context.Context, tripID string) (*Trip, []Stage, error) {
	tr, err := s.Get(ctx, tripID)
	if err != nil {
		return nil, nil, err
	}
	stages, err := s.Stages(ctx, tripID)
	return tr, stages, err
}

// Stages lists the days of a trip in order.
func (s *Store) Stages(ctx context.Context, tripID string) ([]Stage, error) {
	var out []Stage
	err := storage.Conn(ctx, s.db).NewSelect().Model(&out).Where("trip_id = ?", tripID).Order("position").Scan(ctx)
	return out, err
}

// replan decides which computations a settings change re-runs: the
// triggered ones, whatever was still unsettled, and all that depends on
// them. It bumps the generation and marks the plan pending on merged, and
// returns the roots to dispatch (those whose parent is not in the plan).
func replan(prev, merged *Trip, triggered []string) []string {
	if len(triggered) == 0 {
		return nil
	}
	plan := map[string]bool{}
	for _, n := range triggered {
		for _, d := range descendants(n) {
			plan[d] = true
		}
	}
	for name, status := range prev.ComputationStatus {
		if !Settled(status) {
			for _, d := range descendants(name) {
				plan[d] = true
			}
		}
	}
	merged.Generation = prev.Generation + 1
	var roots []string
	for _, name := range Computations {
		if !plan[name] {
			continue
		}
		merged.ComputationStatus[name] = StatusPending
		if !plan[parentOf(name)] {
			roots = append(roots, name)
		}
	}
	return roots
}

// triggered lists the computations a change of settings re-runs
// (pipeline.md, re-triggering): the route for a new address, the day split
// for pacing, the terrain alerts for what they read.
func triggered(changed []string) []string {
	var out []string
	add := func(n string) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, f := range changed {
		switch f {
		case "sourceUrl":
			add(ComputeRoute)
		case "endDate", "fatigueFactor", "elevationPenalty", "maxDistancePerDay":
			add(ComputeStages)
		case "startDate":
			add(ComputeTerrain)        // the sunset rule reads it
			add(ComputeAccommodations) // so does "possibly closed"
			add(ComputePOIs)           // and "closed at passage"
			add(ComputeWeather)        // with wind and fords after it
			add(ComputeCalendar)
			add(ComputeEvents)
		case "ebikeMode", "departureHour", "averageSpeed":
			add(ComputeTerrain) // the sunset and e-bike rules read them
			add(ComputePOIs)    // so does the time the rider passes a shop
		case "enabledAccommodationTypes":
			add(ComputeAccommodations)
		}
	}
	return out
}
