package trips

import (
	"cairn.dev/cairn/progress"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/route/routing"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// ComputeAccommodations scans places to sleep near each day's end.
const ComputeAccommodations = "accommodations"

// enrichments are the computations analyze_trip re-runs (not route, not stages).
var enrichments = []string{ComputeTerrain, ComputeAccommodations}

func (p *Pipeline) accommodations(ctx context.Context, job Job) error {
	tr, stages, err := p.tripAndDays(ctx, job.TripID)
	if err != nil {
		return err
	}
	found := make([]AccommodationList, len(stages))
	for i, s := range stages {
		found[i] = AccommodationList{}
		if s.IsRestDay || p.places == nil {
			continue
		}
		var date *time.Time
		if tr.StartDate != nil {
			if d, err := time.Parse(dateLayout, *tr.StartDate); err == nil {
				d = d.AddDate(0, 0, i)
				date = &d
			}
		}
		cands, err := p.places.Candidates(ctx, s.EndPoint.point(), poi.DefaultRadiusKm, tr.EnabledAccommodationTypes, date)
		if err != nil {
			return err
		}
		for _, c := range cands {
			found[i] = append(found[i], accommodationOf(c))
		}
	}
	err = p.commit(ctx, job, func(ctx context.Context) error {
		for i := range stages {
			if _, err := storage.Conn(ctx, p.store.db).NewUpdate().Model((*Stage)(nil)).
				Set("accommodations = ?", found[i]).Where("id = ?", stages[i].ID).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	p.publish(ctx, job.TripID, "accommodations_found", map[string]any{"stageCount": len(stages)})
	p.stepCompleted(ctx, job.TripID)
	return nil
}

func accommodationOf(c poi.Accommodation) Accommodation {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	a := Accommodation{Name: c.Name, Type: c.Type, Lat: c.Lat, Lon: c.Lon, EstimatedPriceMin: c.EstimatedPriceMin,
		EstimatedPriceMax: c.EstimatedPriceMax, IsExactPrice: c.IsExactPrice, URL: opt(c.URL), PossibleClosed: c.PossibleClosed,
		DistanceToEndPoint: c.DistanceToEndPoint, Source: c.Source, Address: opt(c.Address), Phone: opt(c.Phone),
		OpeningHours: opt(c.OpeningHours), Description: opt(c.Description), OsmType: opt(c.OSMType)}
	if c.OSMID != 0 {
		id := c.OSMID
		a.OsmID = &id
	}
	return a
}

// ChooseInput picks one of a day's candidates by its coordinates; null
// coordinates deselect.
type ChooseInput struct {
	Lat *float64 `json:"selectedAccommodationLat" minimum:"-90" maximum:"90" nullable:"true" doc:"Latitude of the chosen candidate, as get_stage lists it; null deselects."`
	Lon *float64 `json:"selectedAccommodationLon" minimum:"-180" maximum:"180" nullable:"true" doc:"Longitude of the chosen candidate; null deselects."`
}

// ErrNotACandidate refuses a choice the day's list does not hold.
var ErrNotACandidate = &registry.Error{Kind: registry.KindConflict, Code: "not_a_candidate",
	Detail: "no candidate of this day is at these coordinates (the list may have been refreshed); read the day with get_stage and choose again"}

func (t *Trips) mergeChoose(_ context.Context, c *registry.Call, in *ChooseInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	i := d.Target
	s := &d.Stages[i]
	d.touched = []int{i}
	if (in.Lat == nil) != (in.Lon == nil) {
		d.refuse("selectedAccommodationLon", "must be null exactly when selectedAccommodationLat is")
		return d, nil
	}
	if in.Lat == nil {
		s.Selected = nil // deselect: the day keeps its end
		return d, nil
	}
	var list []Accommodation
	if s.Accommodations != nil {
		list = *s.Accommodations
	}
	if s.Selected != nil {
		list = append(list, *s.Selected)
	}
	k := slices.IndexFunc(list, func(a Accommodation) bool {
		return abs(a.Lat-*in.Lat) <= 1e-6 && abs(a.Lon-*in.Lon) <= 1e-6
	})
	if k < 0 {
		return nil, ErrNotACandidate
	}
	chosen := list[k]
	s.Selected = &chosen
	only := AccommodationList{chosen}
	s.Accommodations = &only
	at := Point{Lat: chosen.Lat, Lon: chosen.Lon}
	s.EndPoint = at // the day ends at the chosen place, the next starts there
	if i+1 < len(d.Stages) {
		d.Stages[i+1].StartPoint = at
	}
	return d, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// WaypointInput is a point of interest to ride through on a day.
type WaypointInput struct {
	Lat float64 `json:"waypointLat" minimum:"-90" maximum:"90" doc:"Latitude of the point to pass by."`
	Lon float64 `json:"waypointLon" minimum:"-180" maximum:"180" doc:"Longitude of the point to pass by."`
}

// Detour is the answer of add_waypoint: the day re-routed through the point.
type Detour struct {
	Stage         Day     `json:"stage" doc:"The day as stored, unchanged."`
	Distance      float64 `json:"distance" doc:"Kilometres from the day's start through the point to its end."`
	ElevationGain float64 `json:"elevationGain" doc:"Metres climbed on that route, when the router knows them (0 otherwise)."`
	Duration      int     `json:"durationMinutes" doc:"Estimated riding minutes."`
	Approximate   bool    `json:"approximate" doc:"True when the route is a straight line between the points, not a road route."`
	Points        int     `json:"points" doc:"How many points draw the route (served to apps, not here)."`
	Note          string  `json:"note" doc:"What the answer means for the version you hold."`
}

func (t *Trips) waypoint(ctx context.Context, c *registry.Call, in *WaypointInput) (Detour, error) {
	d := c.Previous.(*Days)
	s := &d.Stages[d.Target]
	if t.router == nil {
		return Detour{}, registry.Fail(registry.KindUnavailable, "no router is configured")
	}
	res, err := t.router.Route(ctx, []geo.Point{s.StartPoint.point(), {Lat: in.Lat, Lon: in.Lon}, s.EndPoint.point()})
	if err != nil {
		if errors.Is(err, routing.ErrUpstream) {
			return Detour{}, &registry.Error{Kind: registry.KindUpstream, Detail: "the routing engine failed; try again later", Err: err}
		}
		return Detour{}, err
	}
	if t.progress != nil { // apps following the trip see the detour too; the answer does not depend on it
		_ = t.progress.Publish(ctx, d.Trip.ID, progress.Event{Type: "route_segment_recalculated", Data: map[string]any{
			"stageId": s.ID, "reason": "poi_detour", "distance": round1(res.Distance), "elevationGain": res.ElevationGain,
			"duration": int(res.Duration.Minutes())}})
	}
	return Detour{Stage: dayOf(s), Distance: round1(res.Distance), ElevationGain: res.ElevationGain,
		Duration: int(res.Duration.Minutes()), Approximate: res.Approximate, Points: len(res.Coordinates),
		Note: "nothing was stored and the trip's version did not move: the version you hold is still good"}, nil
}

func (t *Trips) analyze(ctx context.Context, c *registry.Call, _ *NoInput) (State, error) {
	tr := c.Previous.(*Trip)
	if tr.ComputationStatus[ComputeStages] != StatusDone {
		return State{}, registry.Invalid("nothing to analyze yet",
			registry.Violation{Field: "id", Reason: "the trip has no days yet; wait until get_trip says partial: false"})
	}
	set := map[string]string{}
	for _, n := range enrichments {
		set[n] = StatusPending
	}
	err := storage.Tx{DB: t.store.db}.InTx(ctx, func(ctx context.Context) error {
		// Judged on the locked row, so two calls cannot both start one.
		locked, err := t.store.lockTrip(ctx, tr.ID)
		if err != nil {
			return err
		}
		for _, n := range enrichments {
			if !Settled(locked.ComputationStatus[n]) && locked.ComputationStatus[n] != "" {
				return &registry.Error{Kind: registry.KindConflict, Code: "analysis_running",
					Detail: "an analysis is under way already; read the trip with get_trip until it settles"}
			}
		}
		if err := t.store.transition(ctx, tr.ID, locked.Generation, set); err != nil {
			return err
		}
		return t.jobs.Dispatch(ctx, tr.ID, locked.Generation, enrichments...)
	})
	if err != nil {
		return State{}, err
	}
	fresh, err := t.store.Get(ctx, tr.ID)
	if err != nil {
		return State{}, err
	}
	s := stateOf(fresh, c.Now)
	s.Next = c.ByFace("the analysis runs in the background; read GET /trips/{id}/detail until every status is settled",
		"the analysis runs in the background; read the trip with get_trip until every status is settled")
	return s, nil
}

func (t *Trips) declareEnrichments(reg *registry.Registry) {
	owner := registry.ByURIVariable("id", t.store.Owns)
	registry.Add(reg, registry.Op[ChooseInput, StageEdit]{
		ID: "stages.choose_accommodation", Summary: "Choose where to sleep at the end of a day",
		HTTP: registry.Patch("/trips/{id}/stages/{stageId}/accommodation", http.StatusAccepted),
		Tool: registry.Tool("choose_accommodation", "Choose one of a day's accommodation candidates (coordinates as get_stage lists them): the day ends there and the next starts there. Null coordinates deselect. Needs the version; a repeat is refused because the version moved."),

		Scope: scopes.TripsWrite, Owner: owner, RateLimit: registry.NoRateLimit,
		Load: t.loadDays, Merge: t.mergeChoose, Validate: registry.ValidateWith(validateDays),
		Lock: registry.LockWhen(LockReason, lockedDays), Precondition: registry.RequireVersion,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{},
		Dispatches: true, Record: (*Accommodation)(nil),
		Handle: saveWith[ChooseInput](t),
	})

	registry.Add(reg, registry.Op[WaypointInput, Detour]{
		ID: "stages.add_waypoint", Summary: "Route a day through a point of interest",
		HTTP: registry.Post("/trips/{id}/stages/{stageId}/poi-waypoint", http.StatusOK),
		Tool: registry.Tool("add_waypoint", "Route a day through a point of interest and answer the detour (distance, climb, time). Nothing is stored; the version does not move."),

		Scope: scopes.TripsWrite, Owner: owner, RateLimit: registry.PerUser(30, time.Minute),
		Load: t.loadDays, Validate: registry.ValidateWith(validateDays), Merge: t.mergeWaypoint,
		Lock: registry.LockWhen(LockReason, lockedDays), Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{OpenWorld: true},
		Record: (*geo.Point)(nil),
		Handle: t.waypoint,
	})

	registry.Add(reg, registry.Op[NoInput, State]{
		ID: "trips.analyze", Summary: "Re-run every analysis of a trip",
		HTTP: registry.Post("/trips/{id}/analyze", http.StatusAccepted),
		Tool: registry.Tool("analyze_trip", "Re-run the analyses of a trip's days (alerts, accommodations). Answers at once; poll get_trip until the statuses settle. Refused while one runs."),

		Scope: scopes.TripsWrite, Owner: owner, RateLimit: registry.NoRateLimit, Load: t.load,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{}, Dispatches: true,
		Handle: t.analyze,
	})
}

// MaxDetour is how far from its day a waypoint may be: a point farther
// away is a different trip, not a detour.
const MaxDetour = 50.0 // km

// mergeWaypoint changes nothing stored; it judges the point against the day.
func (t *Trips) mergeWaypoint(_ context.Context, c *registry.Call, in *WaypointInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	s := d.Stages[d.Target]
	p := geo.Point{Lat: in.Lat, Lon: in.Lon}
	near := false
	for _, q := range s.Geometry {
		if geo.Haversine(p, q) <= MaxDetour*1000 {
			near = true
			break
		}
	}
	if !near {
		d.refuse("waypointLat", fmt.Sprintf("the point is more than %.0f km from this day", MaxDetour))
	}
	return d, nil
}

// ManualInput is an accommodation the rider found elsewhere.
type ManualInput struct {
	Name              string   `json:"name" minLength:"1" maxLength:"255" doc:"Name of the place."`
	Address           string   `json:"address" minLength:"1" maxLength:"512" doc:"Its address or town; it is located before anything is written."`
	EstimatedPriceMin *float64 `json:"priceTotal,omitempty" minimum:"0" maximum:"100000" doc:"Price of the night in EUR (0 to 100000), when known."`
	URL               *string  `json:"url,omitempty" maxLength:"2048" format:"uri" doc:"Its website."`
}

func (t *Trips) mergeManual(ctx context.Context, c *registry.Call, in *ManualInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	if t.geocoder == nil {
		return nil, registry.Fail(registry.KindUnavailable, "no place search is configured to locate the address")
	}
	found, err := t.geocoder.Search(ctx, in.Address, 1)
	if err != nil || len(found) == 0 {
		d.refuse("address", "could not be located; give a town name the place search knows")
		return d, nil
	}
	a := Accommodation{Name: in.Name, Type: "other", Source: "manual", Lat: found[0].Lat, Lon: found[0].Lon, URL: in.URL}
	addr := in.Address
	a.Address = &addr
	if in.EstimatedPriceMin != nil {
		a.EstimatedPriceMin, a.EstimatedPriceMax, a.IsExactPrice = *in.EstimatedPriceMin, *in.EstimatedPriceMin, true
	}
	i := d.Target
	s := &d.Stages[i]
	a.DistanceToEndPoint = round1(geo.Haversine(s.EndPoint.point(), geo.Point{Lat: a.Lat, Lon: a.Lon}) / 1000)
	s.Selected = &a
	only := AccommodationList{a}
	s.Accommodations = &only
	at := Point{Lat: a.Lat, Lon: a.Lon}
	s.EndPoint = at
	if i+1 < len(d.Stages) {
		d.Stages[i+1].StartPoint = at
	}
	d.touched = []int{i}
	return d, nil
}

func (t *Trips) declareManual(reg *registry.Registry) {
	registry.Add(reg, registry.Op[ManualInput, StageEdit]{
		ID: "stages.manual_accommodation", Summary: "Enter a place to sleep by hand and choose it",
		HTTP: registry.Post("/trips/{id}/stages/{stageId}/accommodations/manual", http.StatusAccepted),
		Tool: registry.NotATool(registry.MotiveUIVocabulary),

		Scope: scopes.TripsWrite, Owner: registry.ByURIVariable("id", t.store.Owns), RateLimit: registry.PerUser(30, time.Minute),
		Load: t.loadDays, Merge: t.mergeManual, Validate: registry.ValidateWith(validateDays),
		Lock: registry.LockWhen(LockReason, lockedDays), Precondition: registry.RequireVersion,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{},
		Dispatches: true, Record: (*Accommodation)(nil),
		Handle: saveWith[ManualInput](t),
	})
}
