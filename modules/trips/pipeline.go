package trips

import (
	"cairn.dev/cairn/progress"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/google/uuid"

	"cairn.dev/cairn/modules/route/decimate"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/pacing"
	"cairn.dev/cairn/modules/route/places"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/storage"
)

// The computations of a trip and the statuses they go through.
const (
	ComputeRoute   = "route"   // fetch and parse the source
	ComputeStages  = "stages"  // cut the route into days
	ComputeTerrain = "terrain" // the alerts that need no outside data

	StatusPending    = "pending"
	StatusRunning    = "running"
	StatusDone       = "done"
	StatusFailed     = "failed"
	StatusSuperseded = "superseded"
)

// children is the dispatch graph of pipeline.md §6: a computation starts
// when its parent is done.
var children = map[string][]string{
	ComputeRoute: {ComputeStages},
	ComputeStages: {ComputePOIs, ComputeAccommodations, ComputeTerrain, ComputeWeather, ComputeCalendar,
		ComputeBikeShops, ComputeWater, ComputeHealth, ComputeCultural, ComputeStations, ComputeBorders,
		ComputeFerries, ComputeEvents},
	ComputeWeather: {ComputeWind, ComputeFords},
}

// Computations lists every computation, parents first.
var Computations = []string{ComputeRoute, ComputeStages, ComputePOIs, ComputeAccommodations, ComputeTerrain,
	ComputeWeather, ComputeCalendar, ComputeWind, ComputeBikeShops, ComputeWater, ComputeCultural,
	ComputeStations, ComputeHealth, ComputeBorders, ComputeFerries, ComputeFords, ComputeEvents}

func parentOf(name string) string {
	for p, cs := range children {
		if slices.Contains(cs, name) {
			return p
		}
	}
	return ""
}

// descendants returns name and everything that depends on it.
func descendants(name string) []string {
	out := []string{name}
	for _, c := range children[name] {
		out = append(out, descendants(c)...)
	}
	return out
}

// Settled reports whether a status closes the completion gate.
func Settled(status string) bool {
	return status == StatusDone || status == StatusFailed || status == StatusSuperseded
}

// Imported is a route as a source delivers it.
type Imported struct {
	Title      string
	SourceType string
	Tracks     [][]geo.Point // one per tour for a collection, else one
}

// Source fetches the route behind a trip's address.
type Source interface {
	Fetch(ctx context.Context, url string) (Imported, error)
}

// Dispatcher enqueues computations durably, joining the transaction carried
// by ctx, so work is dispatched exactly when what it depends on commits.
type Dispatcher interface {
	Dispatch(ctx context.Context, tripID string, generation int64, names ...string) error
}

// Job is one run of a computation, as the queue hands it over.
type Job struct {
	TripID      string
	Name        string
	Generation  int64
	Attempt     int
	MaxAttempts int
}

// Permanent marks an error that retrying cannot fix (an unsupported address,
// an empty route): the computation fails at once.
type Permanent struct {
	Code    string // e.g. ROUTE_FETCH_FAILED, EMPTY_ROUTE
	Failure string // what get_trip names it (a Failure constant); "" for none of them
	Err     error
}

// The failures of an import that get_trip names, each with its own words
// (failureNote): what went wrong tells what to do.
const (
	FailureUnsupported = "route_unsupported" // the address is no provider's route
	FailureNotFound    = "route_not_found"   // the provider has no such route (removed, private)
	FailureEmpty       = "route_empty"       // the provider's route has no points
	FailureRefused     = "route_refused"     // the provider's answer broke the fetch policy (a redirect elsewhere)
	FailureProvider    = "provider_failed"   // the provider kept failing through every retry
	FailureTooLarge    = "route_too_large"   // the route makes more days or keeps more points than a trip may (bounds.go)
)

// Error implements error.
func (p *Permanent) Error() string { return p.Code + ": " + p.Err.Error() }

// Unwrap exposes the cause.
func (p *Permanent) Unwrap() error { return p.Err }

// Final wraps the error of a run that settled its computation as failed:
// the queue must not try it again.
type Final struct{ Err error }

// Error implements error.
func (f *Final) Error() string { return "settled as failed: " + f.Err.Error() }

// Unwrap exposes the cause.
func (f *Final) Unwrap() error { return f.Err }

// errSuperseded ends a run whose generation is no longer the trip's.
var errSuperseded = errors.New("superseded by a newer generation")

// Pipeline runs the computations of trips.
type Pipeline struct {
	store    *Store
	source   Source
	jobs     Dispatcher
	progress progress.Hub
	places   poi.Provider
	log      *slog.Logger

	data      MapData    // the local geographic store; nil: none
	forecasts Forecaster // nil: no weather configured
	feed      EventFeed  // nil: no events configured
	borders   Borders
	namer     places.Reverser // names the days' ends; nil: no names
}

// Run executes one job. A run whose generation is stale writes nothing. On
// the last attempt, or for a permanent error, the computation and all that
// depends on it settle as failed, so nothing stays pending forever.
func (p *Pipeline) Run(ctx context.Context, job Job) error {
	err := p.run(ctx, job)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errSuperseded):
		p.publish(ctx, job.TripID, "computation_superseded", map[string]any{"computation": job.Name})
		return nil
	}
	var perm *Permanent
	final := errors.As(err, &perm) || job.Attempt >= job.MaxAttempts
	p.log.Warn("computation failed", "trip", job.TripID, "computation", job.Name,
		"attempt", job.Attempt, "final", final, "err", err)
	p.publish(ctx, job.TripID, "computation_error", map[string]any{
		"computation": job.Name, "message": "the computation failed", "retryable": !final,
	})
	if !final {
		return err
	}
	failure := ""
	switch {
	case perm != nil:
		failure = perm.Failure
	case job.Name == ComputeRoute:
		failure = FailureProvider // retried to the last attempt
	}
	if ferr := p.fail(ctx, job, failure); ferr != nil && !errors.Is(ferr, errSuperseded) {
		return errors.Join(err, ferr)
	}
	if perm != nil {
		p.publish(ctx, job.TripID, "validation_error", map[string]any{"code": perm.Code})
	}
	return &Final{Err: err}
}

func (p *Pipeline) run(ctx context.Context, job Job) error {
	if err := p.store.transition(ctx, job.TripID, job.Generation, map[string]string{job.Name: StatusRunning}); err != nil {
		return err
	}
	p.publish(ctx, job.TripID, "computation_running", map[string]any{"computation": job.Name})
	switch job.Name {
	case ComputeRoute:
		return p.importRoute(ctx, job)
	case ComputeStages:
		return p.cutStages(ctx, job)
	case ComputeAccommodations:
		return p.accommodations(ctx, job)
	}
	if compute, ok := p.enrichment(job.Name); ok {
		return p.enrich(ctx, job, compute)
	}
	return &Permanent{Code: "UNKNOWN_COMPUTATION", Err: fmt.Errorf("no computation named %q", job.Name)}
}

// fail settles the computation and its descendants as failed, recording
// on the computation what get_trip names its failure ("" for none).
func (p *Pipeline) fail(ctx context.Context, job Job, failure string) error {
	set := map[string]string{}
	for _, n := range descendants(job.Name) {
		set[n] = StatusFailed
	}
	// The statuses and the failure's words commit together: a read between
	// the two would find the trip failed and not say why.
	err := storage.Tx{DB: p.store.db}.InTx(ctx, func(ctx context.Context) error {
		if err := p.store.transition(ctx, job.TripID, job.Generation, set); err != nil || failure == "" {
			return err
		}
		return p.store.recordFailure(ctx, job.TripID, job.Generation, job.Name, failure)
	})
	if err == nil {
		p.stepCompleted(ctx, job.TripID)
	}
	return err
}

// complete marks the computation done and dispatches what waits on it, in
// the transaction that wrote its results.
func (p *Pipeline) complete(ctx context.Context, job Job) error {
	if err := p.store.transition(ctx, job.TripID, job.Generation, map[string]string{job.Name: StatusDone}); err != nil {
		return err
	}
	if next := children[job.Name]; len(next) > 0 {
		return p.jobs.Dispatch(ctx, job.TripID, job.Generation, next...)
	}
	return nil
}

// commit writes a computation's results and marks it done in one
// transaction, which first checks that the job's generation is still the
// trip's: stale work writes nothing at all.
func (p *Pipeline) commit(ctx context.Context, job Job, write func(ctx context.Context) error) error {
	return storage.Tx{DB: p.store.db}.InTx(ctx, func(ctx context.Context) error {
		if err := p.store.current(ctx, job.TripID, job.Generation); err != nil {
			return err
		}
		if err := write(ctx); err != nil {
			return err
		}
		return p.complete(ctx, job)
	})
}

func (p *Pipeline) importRoute(ctx context.Context, job Job) error {
	tr, err := p.store.Get(ctx, job.TripID)
	if err != nil {
		return err
	}
	imp, err := p.source.Fetch(ctx, tr.SourceURL)
	if err != nil {
		return err
	}
	err = judgeSize(tr, imp)
	var rec *RouteRecord
	if err == nil {
		rec, err = routeRecord(ctx, job.TripID, imp)
	}
	var size *SizeError
	if errors.As(err, &size) {
		return &Permanent{Code: "ROUTE_TOO_LARGE", Failure: FailureTooLarge, Err: err}
	}
	if err != nil {
		return err
	}
	err = p.commit(ctx, job, func(ctx context.Context) error { return p.store.SaveRoute(ctx, rec) })
	if err != nil {
		return err
	}
	p.stepCompleted(ctx, job.TripID, progress.Event{Type: "route_parsed", Data: map[string]any{
		"totalDistance": round1(rec.Distance), "totalElevation": int(rec.Ascent), "totalElevationLoss": int(rec.Descent),
		"sourceType": rec.SourceType, "title": imp.Title,
	}})
	return nil
}

// routeRecord turns imported tracks into the stored route: raw points,
// decimated points (20 m), totals and where each track starts. It stops
// with ctx's error once ctx is done.
func routeRecord(ctx context.Context, tripID string, imp Imported) (*RouteRecord, error) {
	rec := &RouteRecord{TripID: tripID, SourceType: imp.SourceType, CreatedAt: time.Now().UTC()}
	if imp.Title != "" {
		t := imp.Title
		rec.Title = &t
	}
	// One track is kept as it came: a copy of a 1M-point route is 24 MB
	// more at the upload's peak.
	total, tracks := 0, 0
	for _, tr := range imp.Tracks {
		total += len(tr)
		if len(tr) > 0 {
			tracks++
		}
	}
	if tracks > 1 {
		rec.Raw = make(Points, 0, total)
	}
	for _, tr := range imp.Tracks {
		if len(tr) == 0 {
			continue
		}
		rec.TrackStarts = append(rec.TrackStarts, len(rec.Raw))
		if tracks == 1 {
			rec.Raw = Points(tr)
			continue
		}
		rec.Raw = append(rec.Raw, tr...)
	}
	if len(rec.Raw) < 2 {
		return nil, &Permanent{Code: "EMPTY_ROUTE", Err: errors.New("the route has fewer than two points")}
	}
	decimated, err := decimate.SimplifyContext(ctx, rec.Raw, decimate.Tolerance)
	if err != nil {
		return nil, err
	}
	if r := tooManyPoints(len(decimated)); r != "" {
		return nil, &SizeError{Reason: r}
	}
	rec.Decimated = decimated
	rec.Distance = geo.Length(rec.Raw) / 1000
	rec.Ascent, rec.Descent = gpx.Ascent(rec.Raw)
	rec.PointCount = len(rec.Raw)
	return rec, nil
}

func (p *Pipeline) cutStages(ctx context.Context, job Job) error {
	tr, err := p.store.Get(ctx, job.TripID)
	if err != nil {
		return err
	}
	rec, err := p.store.Route(ctx, job.TripID)
	if err != nil {
		return err
	}
	planned, planErr := Plan(ctx, tr, rec)
	if err := ctx.Err(); err != nil {
		return err // stopped, not failed
	}
	if planErr != nil && !errors.Is(planErr, pacing.ErrMinStages) {
		return &Permanent{Code: "PACING_FAILED", Err: planErr}
	}
	stages := make([]Stage, len(planned))
	for i, s := range planned {
		stages[i] = Stage{
			ID: uuid.Must(uuid.NewV7()).String(), TripID: job.TripID, Position: i,
			Distance: s.Distance, Ascent: s.Ascent, Descent: s.Descent,
			StartPoint: Point(s.Start), EndPoint: Point(s.End), Geometry: s.Geometry,
		}
	}
	labelDays(ctx, p.namer, stages, nil)
	err = p.commit(ctx, job, func(ctx context.Context) error { return p.store.ReplaceStages(ctx, job.TripID, stages) })
	if err != nil {
		return err
	}
	var found []progress.Event
	if planErr != nil {
		found = append(found, progress.Event{Type: "validation_error", Data: map[string]any{"code": pacing.CodeMinStages}})
	}
	found = append(found, progress.Event{Type: "stages_computed", Data: map[string]any{"stageCount": len(stages)}})
	p.stepCompleted(ctx, job.TripID, found...)
	return nil
}

// Plan cuts the stored route into days with the trip's settings: one stage
// per tour for a collection, the pacing engine otherwise (which stops with
// ctx's error once ctx is done).
func Plan(ctx context.Context, tr *Trip, rec *RouteRecord) ([]pacing.Stage, error) {
	if rec.SourceType == "komoot_collection" && len(rec.TrackStarts) > 1 {
		var out []pacing.Stage
		for i, start := range rec.TrackStarts {
			end := len(rec.Raw)
			if i+1 < len(rec.TrackStarts) {
				end = rec.TrackStarts[i+1]
			}
			raw := rec.Raw[start:end]
			if len(raw) < 2 {
				continue
			}
			up, down := gpx.Ascent(raw)
			geom := decimate.Simplify(raw, decimate.Tolerance)
			out = append(out, pacing.Stage{Distance: geo.Length(geom) / 1000, Ascent: up, Descent: down,
				Geometry: geom, Start: geom[0], End: geom[len(geom)-1]})
		}
		if len(out) < 2 {
			return out, pacing.ErrMinStages
		}
		return out, nil
	}
	params := pacing.Params{Fatigue: tr.FatigueFactor, ElevationPenalty: tr.ElevationPenalty, MaxDistance: tr.MaxDistancePerDay}
	if tr.StartDate != nil && tr.EndDate != nil {
		s, err1 := time.Parse(dateLayout, *tr.StartDate)
		e, err2 := time.Parse(dateLayout, *tr.EndDate)
		if err1 == nil && err2 == nil {
			params.Days = pacing.DayCount(s, e)
		}
	}
	if params.Days == 0 && pacing.Days(rec.Distance, params) > MaxDays {
		// An import over the bounds is refused; a later change of the
		// daily distance that would cut more days makes the days longer
		// instead, so no trip ever has more than MaxDays.
		params.Days = MaxDays
	}
	params.Days = min(params.Days, MaxDays)
	return pacing.PlanContext(ctx, pacing.Route{Decimated: rec.Decimated, Raw: rec.Raw, Distance: rec.Distance, Ascent: rec.Ascent}, params)
}

// enrichment is the work of the enrichment name.
func (p *Pipeline) enrichment(name string) (func(ctx context.Context, r *run) (outcome, error), bool) {
	f, ok := map[string]func(ctx context.Context, r *run) (outcome, error){
		ComputeTerrain: p.terrain, ComputePOIs: p.pois, ComputeWeather: p.weather, ComputeWind: p.wind,
		ComputeFords: p.fords, ComputeCalendar: p.calendar, ComputeBikeShops: p.bikeShops, ComputeWater: p.waterPoints,
		ComputeHealth: p.healthServices, ComputeCultural: p.culturalPOIs, ComputeStations: p.railwayStations,
		ComputeBorders: p.borderCrossing, ComputeFerries: p.ferries, ComputeEvents: p.events,
	}[name]
	return f, ok
}

// stepCompleted publishes what a computation found, the trip's progress,
// and trip_complete once its computations have all settled. It does so
// under the trip's row lock, so that computations settling together
// announce trip_complete once, and nothing of a round comes after its
// trip_complete (a stream ends there): once announced, a late step says
// nothing the trip's state does not.
func (p *Pipeline) stepCompleted(ctx context.Context, tripID string, found ...progress.Event) {
	err := storage.Tx{DB: p.store.db}.InTx(ctx, func(ctx context.Context) error {
		tr, err := p.store.lockTrip(ctx, tripID)
		if err != nil || tr.CompletionAnnounced {
			return err
		}
		for _, e := range found {
			p.publish(ctx, tripID, e.Type, e.Data)
		}
		done, failed := 0, 0
		for _, s := range tr.ComputationStatus {
			switch s {
			case StatusDone:
				done++
			case StatusFailed:
				failed++
			}
		}
		p.publish(ctx, tripID, "computation_step_completed", map[string]any{
			"completed": done, "failed": failed, "total": len(tr.ComputationStatus),
		})
		if !allSettled(tr.ComputationStatus) {
			return nil
		}
		tr.CompletionAnnounced = true
		if _, err := storage.Conn(ctx, p.store.db).NewUpdate().Model(tr).Column("completion_announced").WherePK().Exec(ctx); err != nil {
			return err
		}
		p.publish(ctx, tripID, "trip_complete", map[string]any{"computationStatus": tr.ComputationStatus})
		return nil
	})
	if err != nil && !errors.Is(err, errSuperseded) {
		p.log.Warn("progress not published", "trip", tripID, "err", err)
	}
}

func (p *Pipeline) publish(ctx context.Context, tripID, typ string, data any) {
	if p.progress == nil {
		return
	}
	if err := p.progress.Publish(ctx, tripID, progress.Event{Type: typ, Data: data}); err != nil {
		p.log.Warn("progress not published", "trip", tripID, "event", typ, "err", err)
	}
}

func round1(v float64) float64 { return float64(int(v*10+0.5)) / 10 }
