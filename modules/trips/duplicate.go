package trips

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// declareCopies adds the duplication of a trip: a creation like POST
// /trips, so it carries an idempotency key and its repeat replays the copy
// the first call made.
func (t *Trips) declareCopies(reg *registry.Registry) {
	registry.Add(reg, registry.Op[DuplicateInput, State]{
		ID:      "trips.duplicate",
		Summary: "Copy a trip: settings, route and days with what was computed, without its share links",
		HTTP:    registry.Post("/trips/{id}/duplicate", http.StatusCreated),
		Tool:    registry.NotATool(registry.MotiveCoveredByAnotherTool),

		Scope:        scopes.TripsWrite,
		Owner:        registry.ByURIVariable("id", t.store.Owns),
		RateLimit:    registry.PerUser(10, time.Minute),
		Load:         t.load,
		Merge:        t.mergeDuplicate,
		Validate:     registry.ValidateWith(validateCopy),
		Lock:         registry.NoLock, // copying reads the trip; the copy judges its own lock
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.CreationReplayedBy(t.replayCreate),
		Hints:        registry.Hints{},
		Dispatches:   true,
		Record:       (*Trip)(nil),

		Handle: t.duplicate,
	})
}

// DuplicateInput names the copy; without a title it keeps the original's.
type DuplicateInput struct {
	Title *string `json:"title,omitempty" maxLength:"255" doc:"Name of the copy (at most 255 characters); the original's name when absent."`
}

// mergeDuplicate is the copy's settings: the original's, with the title
// given, judged like any trip's.
func (t *Trips) mergeDuplicate(_ context.Context, c *registry.Call, in *DuplicateInput) (registry.Record, error) {
	cp := c.Previous.(*Trip).clone()
	if in.Title != nil {
		cp.Title = in.Title
	}
	return cp, nil
}

// validateCopy judges the copy as any trip, and its title: a copy named
// by the caller gets a name, not blanks.
func validateCopy(r registry.Record) []registry.Violation {
	tr := r.(*Trip)
	vs := tr.Violations()
	if tr.Title != nil && strings.TrimSpace(*tr.Title) == "" {
		vs = append(vs, registry.Violation{Field: "title", Reason: "must not be blank; leave it out to keep the original's"})
	}
	return vs
}

// duplicate copies trip id for its owner: the settings, title, source and
// locale, the imported route, and every day with its computed data (alerts,
// accommodations, the chosen one). Share links are not copied. What was
// settled stays settled; what was still pending or running on the original
// is planned again on the copy, so nothing waits on work that will never
// come. The copy keeps the start date, so a copy of a started trip is born
// locked, and its answer says so.
func (t *Trips) duplicate(ctx context.Context, c *registry.Call, _ *DuplicateInput) (State, error) {
	src := c.Previous.(*Trip)
	stages, err := t.store.Stages(ctx, src.ID)
	if err != nil {
		return State{}, err
	}
	route, err := t.store.Route(ctx, src.ID)
	var none *Permanent
	switch {
	case errors.As(err, &none):
		route = nil // not imported yet: the copy imports it
	case err != nil:
		return State{}, err
	}

	now := c.Now.UTC()
	cp := c.Merged.(*Trip)
	cp.ID, cp.UserID = uuid.Must(uuid.NewV7()).String(), c.UserID()
	cp.Version, cp.Generation, cp.CompletionAnnounced = 1, 1, false
	cp.CreatedAt, cp.UpdatedAt = now, now
	plan, roots := copyPlan(cp.ComputationStatus)

	err = storage.Tx{DB: t.store.db}.InTx(ctx, func(ctx context.Context) error {
		if err := t.store.Insert(ctx, cp); err != nil {
			return err
		}
		if route != nil {
			r := *route
			r.TripID, r.CreatedAt = cp.ID, now
			if err := t.store.SaveRoute(ctx, &r); err != nil {
				return err
			}
		}
		if len(stages) > 0 {
			copies := make([]Stage, len(stages))
			for i, s := range stages {
				s.ID, s.TripID = uuid.Must(uuid.NewV7()).String(), cp.ID
				copies[i] = s
			}
			if err := t.store.ReplaceStages(ctx, cp.ID, copies); err != nil {
				return err
			}
		}
		if err := t.store.record(ctx, cp.ID, cp.Generation, plan); err != nil {
			return err
		}
		if len(roots) == 0 {
			return nil
		}
		return t.jobs.Dispatch(ctx, cp.ID, cp.Generation, roots...)
	})
	if err != nil {
		return State{}, err
	}
	s := stateOf(cp, c.Now)
	switch {
	case s.IsLocked:
		s.Next = c.ByFace("the copy keeps the original's start date, which is today or past: it is locked like the original; read GET /trips/{id}/detail with this id",
			"the copy keeps the original's start date, which is today or past: it is locked like the original; call get_trip with this id")
	default:
		s.Next = c.ByFace("the copy is a trip of its own; read GET /trips/{id}/detail with this id",
			"the copy is a trip of its own; call get_trip with this id")
	}
	return s, nil
}

// copyPlan is the status map a copy starts from, as the history rows to
// record, and the computations to dispatch: settled ones are kept as they
// are, an unsettled one is planned again with all that depends on it.
func copyPlan(statuses StatusMap) (map[string]string, []string) {
	again := map[string]bool{}
	for name, st := range statuses {
		if !Settled(st) {
			for _, d := range descendants(name) {
				again[d] = true
			}
		}
	}
	plan := map[string]string{}
	for name, st := range statuses {
		plan[name] = st
	}
	var roots []string
	for _, name := range Computations {
		if !again[name] {
			continue
		}
		statuses[name], plan[name] = StatusPending, StatusPending
		if !again[parentOf(name)] {
			roots = append(roots, name)
		}
	}
	return plan, roots
}

// replayUpload rebuilds the answer of an upload from the trip it created:
// its current statuses, totals and days.
func (t *Trips) replayUpload(ctx context.Context, c *registry.Call, id string) (any, error) {
	tr, stages, err := t.store.TripAndDays(ctx, id)
	if err != nil {
		return nil, err
	}
	route, err := t.store.Route(ctx, id)
	var none *Permanent
	switch {
	case errors.As(err, &none):
		route = &RouteRecord{} // not kept (yet): totals of zero
	case err != nil:
		return nil, err
	}
	out := uploadedOf(tr, route, stages, c.Now)
	out.Next = c.ByFace("this repeats an earlier upload with the same key; read GET /trips/{id}/detail with this id",
		"this repeats an earlier upload with the same key; call get_trip with this id")
	return out, nil
}
