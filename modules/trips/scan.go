package trips

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// ScanInput widens the accommodation search around the days' ends.
type ScanInput struct {
	RadiusKm   *float64 `json:"radiusKm,omitempty" minimum:"1" maximum:"15" doc:"Search radius around each day's end in km, 1 to 15 (default 5)."`
	StageIndex *int     `json:"stageIndex,omitempty" minimum:"0" doc:"0-based day to scan; every day when absent."`
}

// scanRequest is a widened scan asked for one generation of a trip: the
// accommodations computation of that generation reads it, scans at its
// radius and appends what it finds to the candidates already listed.
type scanRequest struct {
	bun.BaseModel `bun:"table:trip_scans"`

	TripID     string    `bun:"trip_id,pk"`
	Generation int64     `bun:"generation"`
	RadiusKm   float64   `bun:"radius_km"`
	StageIndex *int      `bun:"stage_index"` // nil: every day
	CreatedAt  time.Time `bun:"created_at"`
}

func (t *Trips) declareScan(reg *registry.Registry) {
	registry.Add(reg, registry.Op[ScanInput, State]{
		ID:      "trips.scan_accommodations",
		Summary: "Look for more places to sleep, in a wider radius",
		HTTP:    registry.Post("/trips/{id}/accommodations/scan", http.StatusAccepted),
		Tool:    registry.NotATool(registry.MotiveUIVocabulary),

		Scope:        scopes.TripsWrite,
		Owner:        registry.ByURIVariable("id", t.store.Owns),
		RateLimit:    registry.PerUser(10, time.Minute),
		Load:         t.loadDays,
		Merge:        t.mergeScan,
		Validate:     registry.ValidateWith(validateDays),
		Lock:         registry.NoLock, // it adds candidates; it changes nothing the rider wrote
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{},
		Dispatches:   true,
		Record:       (*scanRequest)(nil),

		Handle: t.scan,
	})
}

// mergeScan judges the day named against the trip's days.
func (t *Trips) mergeScan(_ context.Context, c *registry.Call, in *ScanInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	if in.StageIndex != nil && (*in.StageIndex < 0 || *in.StageIndex >= len(d.Stages)) {
		d.refuse("stageIndex", fmt.Sprintf("is not a day of this trip (0 to %d)", len(d.Stages)-1))
	}
	if in.RadiusKm != nil && (*in.RadiusKm < 1 || *in.RadiusKm > poi.MaxRadiusKm) {
		d.refuse("radiusKm", "must be between 1 and 15 km")
	}
	return d, nil
}

// scan records the request for the trip's generation, resets the
// accommodations computation and dispatches it; the generation does not
// move (a scan changes no day).
func (t *Trips) scan(ctx context.Context, c *registry.Call, in *ScanInput) (State, error) {
	d := c.Merged.(*Days)
	if d.Trip.ComputationStatus[ComputeStages] != StatusDone || len(d.Stages) == 0 {
		return State{}, noDaysYet(c, "scan")
	}
	req := &scanRequest{TripID: d.Trip.ID, RadiusKm: poi.DefaultRadiusKm, StageIndex: in.StageIndex, CreatedAt: c.Now.UTC()}
	if in.RadiusKm != nil {
		req.RadiusKm = *in.RadiusKm
	}
	err := storage.Tx{DB: t.store.db}.InTx(ctx, func(ctx context.Context) error {
		locked, err := t.store.lockTrip(ctx, d.Trip.ID)
		if err != nil {
			return err
		}
		req.Generation = locked.Generation
		if _, err := storage.Conn(ctx, t.store.db).NewInsert().Model(req).
			On("CONFLICT (trip_id) DO UPDATE").
			Set("generation = EXCLUDED.generation").Set("radius_km = EXCLUDED.radius_km").
			Set("stage_index = EXCLUDED.stage_index").Set("created_at = EXCLUDED.created_at").
			Exec(ctx); err != nil {
			return err
		}
		if err := t.store.transition(ctx, d.Trip.ID, locked.Generation, map[string]string{ComputeAccommodations: StatusPending}); err != nil {
			return err
		}
		return t.jobs.Dispatch(ctx, d.Trip.ID, locked.Generation, ComputeAccommodations)
	})
	if err != nil {
		return State{}, err
	}
	fresh, err := t.store.Get(ctx, d.Trip.ID)
	if err != nil {
		return State{}, err
	}
	s := stateOf(fresh, c.Now)
	s.Next = c.ByFace("the scan runs in the background; read GET /trips/{id}/stages/{stageId}/detail for the candidates once accommodations is done",
		"the scan runs in the background; read the day with get_stage once accommodations is done")
	return s, nil
}

// scanOf is the widened scan asked for generation gen of a trip, or nil
// (a plain scan: default radius, every day, the lists replaced).
func (s *Store) scanOf(ctx context.Context, tripID string, gen int64) (*scanRequest, error) {
	req := new(scanRequest)
	err := storage.Conn(ctx, s.db).NewSelect().Model(req).Where("trip_id = ? AND generation = ?", tripID, gen).Scan(ctx)
	if storage.NoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return req, nil
}

// RecordVersion implements registry.Record; a scan request has no version.
func (r *scanRequest) RecordVersion() int64 { return 0 }

// radius is how far around a day's end the scan looks.
func (r *scanRequest) radius() float64 {
	if r == nil {
		return poi.DefaultRadiusKm
	}
	return r.RadiusKm
}

// covers reports whether the scan looks at day i.
func (r *scanRequest) covers(i int) bool {
	return r == nil || r.StageIndex == nil || *r.StageIndex == i
}

// base is what day s lists before the scan adds to it: nothing for a
// plain scan (it replaces the list), the current candidates for a widened
// one (it appends).
func (r *scanRequest) base(s *Stage) AccommodationList {
	if r == nil || s.Accommodations == nil {
		return AccommodationList{}
	}
	return append(AccommodationList{}, *s.Accommodations...)
}

// add appends a candidate; a widened scan skips one already listed at the
// same coordinates.
func (r *scanRequest) add(list AccommodationList, a Accommodation) AccommodationList {
	if r != nil {
		for _, b := range list {
			if abs(a.Lat-b.Lat) <= 1e-6 && abs(a.Lon-b.Lon) <= 1e-6 {
				return list
			}
		}
	}
	return append(list, a)
}

// forgetScan drops the trip's widened scan: the next accommodations run
// scans every day afresh at the default radius.
func (s *Store) forgetScan(ctx context.Context, tripID string) error {
	_, err := storage.Conn(ctx, s.db).NewDelete().Model((*scanRequest)(nil)).Where("trip_id = ?", tripID).Exec(ctx)
	return err
}
