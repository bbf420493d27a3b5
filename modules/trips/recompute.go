package trips

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// The kinds of change a recompute follows (pipeline.md, re-triggering).
const (
	ModAccommodation = "accommodation" // a day's place to sleep changed
	ModDistance      = "distance"      // a day's length changed
	ModDates         = "dates"         // the trip's dates changed
	ModPacing        = "pacing"        // the pacing changed
)

// Modifications lists the kinds a recompute accepts.
var Modifications = []string{ModAccommodation, ModDistance, ModDates, ModPacing}

// recomputed maps a kind of change to the computations it re-runs
// (pipeline.md §6, re-triggering): a day's recalculation re-runs the
// places along it, its accommodations, the terrain, bike shops and
// events; a distance the services along the day and the date rules too; the
// dates the date rules; the pacing everything.
var recomputed = map[string][]string{
	ModAccommodation: {ComputePOIs, ComputeAccommodations, ComputeTerrain, ComputeBikeShops, ComputeEvents},
	ModDistance: {ComputePOIs, ComputeAccommodations, ComputeTerrain, ComputeBikeShops, ComputeWater, ComputeHealth,
		ComputeStations, ComputeWeather, ComputeCalendar},
	ModDates:  {ComputeTerrain, ComputeAccommodations, ComputeWeather, ComputeCalendar, ComputeEvents, ComputeCultural},
	ModPacing: enrichments,
}

// needsStage are the kinds that name a day.
var needsStage = []string{ModAccommodation, ModDistance}

// Modification is one change the client made and wants followed.
type Modification struct {
	StageIndex *int    `json:"stageIndex,omitempty" minimum:"0" doc:"0-based day the change concerns; required for accommodation and distance."`
	Type       string  `json:"type" enum:"accommodation,distance,dates,pacing" doc:"What changed: accommodation, distance, dates or pacing."`
	Label      *string `json:"label,omitempty" maxLength:"255" doc:"A word for the change, repeated on the trip's progress stream."`
}

// RecomputeInput lists the changes to follow; at least one.
type RecomputeInput struct {
	Modifications []Modification `json:"modifications" minItems:"1" maxItems:"100" nullable:"false" doc:"The changes to follow, at least one."`
}

func (t *Trips) declareRecompute(reg *registry.Registry) {
	registry.Add(reg, registry.Op[RecomputeInput, State]{
		ID:      "trips.recompute",
		Summary: "Re-run what a list of changes affects",
		HTTP:    registry.Post("/trips/{id}/recompute", http.StatusAccepted),
		Tool:    registry.NotATool(registry.MotiveUIVocabulary),

		Scope:        scopes.TripsWrite,
		Owner:        registry.ByURIVariable("id", t.store.Owns),
		RateLimit:    registry.PerVariable("id", 10, time.Minute), // 10 per trip: one busy trip leaves the others theirs
		Load:         t.loadDays,
		Merge:        t.mergeRecompute,
		Validate:     registry.ValidateWith(validateDays),
		Lock:         registry.NoLock, // it re-runs analyses; it changes nothing the rider wrote
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{},
		Dispatches:   true,
		Record:       (*RecomputeInput)(nil), // nothing of it is stored: the list is what the new generation follows

		Handle: t.recompute,
	})
}

// mergeRecompute changes nothing stored; it judges the list against the
// trip's days: a kind that names a day needs one of them.
func (t *Trips) mergeRecompute(_ context.Context, c *registry.Call, in *RecomputeInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	if len(in.Modifications) == 0 {
		d.refuse("modifications", "must list at least one modification")
	}
	for k, m := range in.Modifications {
		field := fmt.Sprintf("modifications[%d].stageIndex", k)
		switch {
		case !slices.Contains(Modifications, m.Type):
			d.refuse(fmt.Sprintf("modifications[%d].type", k), "must be one of accommodation, distance, dates, pacing")
		case m.StageIndex == nil && slices.Contains(needsStage, m.Type):
			d.refuse(field, "is required for type "+m.Type)
		case m.StageIndex != nil && (*m.StageIndex < 0 || *m.StageIndex >= len(d.Stages)):
			d.refuse(field, fmt.Sprintf("must be a day of this trip, 0 to %d", len(d.Stages)-1))
		}
	}
	return d, nil
}

// recompute starts a new generation and re-runs what the changes affect:
// the whole fan-out while the first analysis has not settled, else the
// union of what each change re-runs. Older work is superseded.
func (t *Trips) recompute(ctx context.Context, c *registry.Call, in *RecomputeInput) (State, error) {
	d := c.Merged.(*Days)
	if d.Trip.ComputationStatus[ComputeStages] != StatusDone {
		return State{}, noDaysYet(c, "recompute")
	}
	err := storage.Tx{DB: t.store.db}.InTx(ctx, func(ctx context.Context) error {
		locked, err := t.store.lockTrip(ctx, d.Trip.ID)
		if err != nil {
			return err
		}
		plan := recomputePlan(locked.ComputationStatus, in.Modifications)
		return t.store.regenerate(ctx, t.jobs, locked, plan)
	})
	if err != nil {
		return State{}, err
	}
	fresh, err := t.store.Get(ctx, d.Trip.ID)
	if err != nil {
		return State{}, err
	}
	if t.progress != nil { // apps following the trip see what is re-run and why; the answer does not depend on it
		_ = t.progress.Publish(ctx, fresh.ID, progress.Event{Type: "recompute_started", Data: map[string]any{"modifications": in.Modifications}})
	}
	s := stateOf(fresh, c.Now)
	s.Next = c.ByFace("the changes are followed in the background; read GET /trips/{id}/detail until every status is settled",
		"the changes are followed in the background; read the trip with get_trip until every status is settled")
	return s, nil
}

// recomputePlan is what a recompute re-runs: every enrichment while one of
// them has not settled yet (the first analysis is under way, and the new
// generation supersedes it), else what the changes name.
func recomputePlan(statuses StatusMap, mods []Modification) []string {
	var plan []string
	for _, n := range enrichments {
		if st, ok := statuses[n]; ok && !Settled(st) {
			return slices.Clone(enrichments)
		}
	}
	for _, m := range mods {
		for _, root := range recomputed[m.Type] {
			for _, n := range descendants(root) { // the weather's wind and fords with it
				if !slices.Contains(plan, n) {
					plan = append(plan, n)
				}
			}
		}
	}
	// In pipeline order, so the statuses and the dispatch read the same.
	slices.SortFunc(plan, func(a, b string) int { return slices.Index(Computations, a) - slices.Index(Computations, b) })
	return plan
}

// regenerate moves the locked trip to a new generation with plan pending,
// supersedes the older generations' unsettled work and dispatches plan, in
// the transaction carried by ctx (which holds the trip's row).
func (s *Store) regenerate(ctx context.Context, jobs Dispatcher, locked *Trip, plan []string) error {
	locked.Generation++
	if locked.ComputationStatus == nil {
		locked.ComputationStatus = StatusMap{}
	}
	set := map[string]string{}
	for _, n := range plan {
		locked.ComputationStatus[n], set[n] = StatusPending, StatusPending
	}
	locked.CompletionAnnounced = false // the plan is pending again
	if _, err := storage.Conn(ctx, s.db).NewUpdate().Model(locked).Column("generation", "computation_status", "completion_announced").Set(bumpKeeping).WherePK().Exec(ctx); err != nil {
		return err
	}
	s.changed(ctx, locked.ID)
	if err := s.supersede(ctx, locked.ID, locked.Generation); err != nil {
		return err
	}
	if err := s.record(ctx, locked.ID, locked.Generation, set); err != nil {
		return err
	}
	return jobs.Dispatch(ctx, locked.ID, locked.Generation, roots(plan)...)
}
