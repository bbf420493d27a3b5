package trips

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
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
	tr := &Trip{ID: tripID}
	row, err := s.reads.lockTrip.QueryRow(ctx, tripID)
	if err == nil {
		err = row.Scan(&tr.Generation, &tr.ComputationStatus, &tr.CompletionAnnounced)
	}
	if err != nil {
		if storage.NoRows(err) {
			return nil, errSuperseded // the trip was deleted: its work writes nothing
		}
		return nil, err
	}
	return tr, nil
}

// forUpdate locks the row a query reads on PostgreSQL; SQLite's writer
// holds the whole file already.
func forUpdate(db *bun.DB) string {
	if db.Dialect().Name() == dialect.PG {
		return " FOR UPDATE"
	}
	return ""
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
		if _, err := s.reads.setStatus.Exec(ctx, tr.ComputationStatus, tr.CompletionAnnounced, tripID); err != nil {
			return err
		}
		s.changed(ctx, tripID)
		return s.record(ctx, tripID, gen, set)
	})
}

// record upserts the history rows of generation gen, in one statement: a
// recut schedules a dozen computations, and a statement each was parsed
// and planned a dozen times (SQLite reads bun's statements as new text).
// The rows go in the order of their names, so that two writers lock them
// in the same order.
func (s *Store) record(ctx context.Context, tripID string, gen int64, set map[string]string) error {
	if len(set) == 0 {
		return nil
	}
	now := time.Now().UTC()
	rows := make([]computationRow, 0, len(set))
	for _, name := range slices.Sorted(maps.Keys(set)) {
		rows = append(rows, computationRow{TripID: tripID, Name: name, Generation: gen, Status: set[name], UpdatedAt: now})
	}
	_, err := storage.Conn(ctx, s.db).NewInsert().Model(&rows).
		On("CONFLICT (trip_id, name, generation) DO UPDATE").
		Set("status = EXCLUDED.status").Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return err
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
	if err := s.insertRouteRow(ctx, rec); err != nil {
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

// insertRouteRow inserts the route's row. On SQLite its points are bound,
// not written into the statement: SQLite would hold bun's text twice more
// (the statement's, and the literal parsed out of it) beside the row it
// builds, 28 bytes a point each time (the densest upload peaked 175 MB
// above idle, 132 bound). On PostgreSQL bun's text is the lighter: the
// driver's encoding of a bound text grows its buffers past the text's size
// (109 MB written into the text, 179 bound).
func (s *Store) insertRouteRow(ctx context.Context, rec *RouteRecord) error {
	if s.db.Dialect().Name() == dialect.PG {
		_, err := storage.Conn(ctx, s.db).NewInsert().Model(rec).Exec(ctx)
		return err
	}
	_, err := s.insertRoute.Exec(ctx, rec.TripID, rec.Title, rec.SourceType, rec.Raw, rec.Decimated,
		rec.TrackStarts, rec.Distance, rec.Ascent, rec.Descent, rec.PointCount, storage.Timestamp(rec.CreatedAt))
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
	return s.daysStored(ctx, tripID, len(stages))
}

// ReviseStages stores next in place of prev, the trip's days as read in the
// same transaction, writing only what changed: a day of both left as it
// was is not written, a day changed writes its changed columns, and days
// gone or new are deleted or inserted. An edit changes a day or two, and
// rewriting every day (each with its geometry, written into the SQL text
// and parsed again) was most of an edit's work.
func (s *Store) ReviseStages(ctx context.Context, tripID string, prev, next []Stage) error {
	db := storage.Conn(ctx, s.db)
	gone := make(map[string]*Stage, len(prev))
	for i := range prev {
		gone[prev[i].ID] = &prev[i]
	}
	var added []Stage
	for i := range next {
		n := &next[i]
		p, ok := gone[n.ID]
		if !ok {
			added = append(added, *n)
			continue
		}
		delete(gone, n.ID)
		if cols := changedColumns(p, n); len(cols) > 0 {
			if _, err := db.NewUpdate().Model(n).Column(cols...).WherePK().Exec(ctx); err != nil {
				return err
			}
		}
	}
	if len(gone) > 0 {
		ids := make([]string, 0, len(gone))
		for id := range gone {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		if _, err := db.NewDelete().Model((*Stage)(nil)).Where("id IN (?)", bun.List(ids)).Exec(ctx); err != nil {
			return err
		}
	}
	if len(added) > 0 {
		if _, err := db.NewInsert().Model(&added).Exec(ctx); err != nil {
			return err
		}
	}
	return s.daysStored(ctx, tripID, len(next))
}

// stageColumns are the stored columns of a Stage, by field index, the
// key excepted.
var stageColumns = func() map[int]string {
	out := map[int]string{}
	t := reflect.TypeFor[Stage]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("bun"), ",")
		if f.Anonymous || name == "" || name == "-" || name == "id" {
			continue
		}
		out[i] = name
	}
	return out
}()

// changedColumns names the columns of the fields in which b differs from
// a: the geometry first, then in the order of the fields. A geometry is
// compared point by point (slices.Equal): reflect.DeepEqual walks a day's
// thousands of points through reflection.
func changedColumns(a, b *Stage) []string {
	var out []string
	if !slices.Equal(a.Geometry, b.Geometry) {
		out = append(out, stageColumns[geometryField])
	}
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		name, ok := stageColumns[i]
		if ok && i != geometryField && !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, name)
		}
	}
	return out
}

// geometryField is the index of Stage.Geometry.
var geometryField = stageField("Geometry")

// stageField is the index of Stage's field name.
func stageField(name string) int {
	f, _ := reflect.TypeFor[Stage]().FieldByName(name)
	return f.Index[0]
}

// daysStored ends a write of a trip's days: a trip with at least two days
// is ready, and its revision moves on.
func (s *Store) daysStored(ctx context.Context, tripID string, days int) error {
	status := StatusDraft
	if days >= 2 {
		status = StatusReady
	}
	_, err := storage.Conn(ctx, s.db).NewUpdate().Model((*Trip)(nil)).Set("status = ?", status).Set(bumpRevision).Where("id = ?", tripID).Exec(ctx)
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
