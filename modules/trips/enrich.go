package trips

import (
	"cairn.dev/cairn/progress"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"time"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/route/routing"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// ComputeAccommodations scans places to sleep near each day's end.
const ComputeAccommodations = "accommodations"

// enrichments are the computations analyze_trip re-runs (not route, not
// stages), in pipeline order.
var enrichments = Computations[2:]

func (p *Pipeline) accommodations(ctx context.Context, job Job) error {
	tr, stages, err := p.store.TripAndDays(ctx, job.TripID)
	if err != nil {
		return err
	}
	scan, err := p.store.scanOf(ctx, job.TripID, job.Generation) // nil: a plain scan
	if err != nil {
		return err
	}
	found := make([]AccommodationList, len(stages))
	closures := make([][]alerts.Alert, len(stages))
	for i, s := range stages {
		found[i] = scan.base(&s)
		if s.IsRestDay || p.places == nil || !scan.covers(i) {
			continue
		}
		var date *time.Time
		if tr.StartDate != nil {
			if d, err := time.Parse(dateLayout, *tr.StartDate); err == nil {
				d = d.AddDate(0, 0, i)
				date = &d
			}
		}
		cands, err := p.places.Candidates(ctx, s.EndPoint.point(), scan.radius(), tr.EnabledAccommodationTypes, date)
		if err != nil {
			return err
		}
		for _, c := range cands {
			found[i] = scan.add(found[i], accommodationOf(c))
		}
		closed := 0
		for _, a := range found[i] {
			if a.PossibleClosed {
				closed++
			}
		}
		closures[i] = alerts.Closure(i, alertStages(stages)[i], date, len(found[i]), closed)
	}
	o := outcome{days: closures}
	if tr.StartDate == nil {
		o.coverage = CoverageNoDate // no seasonal closure is claimed without a date
	}
	err = p.commit(ctx, job, func(ctx context.Context) error {
		for i := range stages {
			if _, err := storage.Conn(ctx, p.store.db).NewUpdate().Model((*Stage)(nil)).
				Set("accommodations = ?", found[i]).Where("id = ?", stages[i].ID).Exec(ctx); err != nil {
				return err
			}
		}
		return p.store.saveOutcome(ctx, job.TripID, ComputeAccommodations, stages, o)
	})
	if err != nil {
		return err
	}
	p.stepCompleted(ctx, job.TripID, progress.Event{Type: "accommodations_found", Data: map[string]any{"stageCount": len(stages)}})
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
	a.ID = a.Key()
	return a
}

// ChooseInput picks one of a day's candidates by its id; null deselects.
// Coordinates are no way to choose: a rounded float names nothing. A
// place found elsewhere is entered by hand (stages.manual_accommodation).
type ChooseInput struct {
	ID *string `json:"accommodationId" maxLength:"128" nullable:"true" doc:"id of one of the day's candidates, as the day's read lists them; null deselects."`
}

// ErrNotACandidate is the code of a choice the day's list does not hold.
const ErrNotACandidate = "not_a_candidate"

// notACandidate refuses a choice the day's list does not hold, saying why
// the list is what it is and what changes it.
func (t *Trips) notACandidate(ctx context.Context, c *registry.Call, s *Stage) error {
	detail := "no candidate of this day has this id; "
	if s.Accommodations != nil && len(*s.Accommodations) > 0 {
		detail += c.ByFace("take one of the ids the day's accommodations list in GET /trips/{id}/stages/{stageId}/detail",
			"take one of the ids listed under accommodations in the get_stage answer you have")
	} else {
		why, err := t.noCandidates(ctx, c, s)
		if err != nil {
			return err
		}
		detail = "this day has no candidates to choose from: " + why
	}
	return &registry.Error{Kind: registry.KindConflict, Code: ErrNotACandidate, Detail: detail}
}

// noCandidates says why a day lists no place to sleep, and what fixes it.
func (t *Trips) noCandidates(ctx context.Context, c *registry.Call, s *Stage) (string, error) {
	manual := c.ByFace(" Meanwhile a place found elsewhere can be entered with POST /trips/{id}/stages/{stageId}/accommodations/manual.",
		" Meanwhile the person can enter a place found elsewhere in an app.")
	switch {
	case s.IsRestDay:
		return "a rest day ends where the day before it did; choose for that day.", nil
	case s.Accommodations == nil:
		return "the day's accommodations are not scanned yet; they are once computationStatus.accommodations is done.", nil
	case t.places == nil:
		return "this server has no source of accommodations configured (no place store, no Overpass); its operator sets one up." + manual, nil
	}
	if h, ok := t.places.(interface {
		HoldsAny(ctx context.Context, categories []string) (bool, error)
	}); ok {
		filled, err := h.HoldsAny(ctx, AccommodationTypes)
		if err != nil {
			return "", err
		}
		if !filled {
			return "this server's place store holds no accommodations (none were imported and no Overpass is configured); " +
				"its operator fixes it by importing an OpenStreetMap extract (cairn pois import) or setting overpass_url." + manual, nil
		}
	}
	return fmt.Sprintf("no place of the enabled types lies within %.0f km of the day's end. ", poi.DefaultRadiusKm) +
		c.ByFace("Enabling more types (PATCH /trips/{id}, enabledAccommodationTypes) or moving the day's end changes that.",
			"Enabling more types (update_trip_settings, enabledAccommodationTypes) or moving the day's end (edit_stages) changes that.") + manual, nil
}

func (t *Trips) mergeChoose(ctx context.Context, c *registry.Call, in *ChooseInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	i := d.Target
	s := &d.Stages[i]
	d.touched = []int{i}
	if in.ID == nil {
		s.Selected = nil // deselect: the day keeps its end
		return d, nil
	}
	if s.IsRestDay {
		d.refuse("stageId", "a rest day has no night of its own: choose for the riding day before it")
		return d, nil
	}
	var list []Accommodation
	if s.Accommodations != nil {
		list = *s.Accommodations
	}
	if s.Selected != nil {
		list = append(list, *s.Selected)
	}
	k := slices.IndexFunc(list, func(a Accommodation) bool { return a.Key() == *in.ID })
	if k < 0 {
		return nil, t.notACandidate(ctx, c, &c.Previous.(*Days).Stages[i])
	}
	chosen := list[k]
	chosen.ID = chosen.Key()
	s.Selected = &chosen
	only := AccommodationList{chosen}
	s.Accommodations = &only
	s.EndPoint = Point{Lat: chosen.Lat, Lon: chosen.Lon} // the day ends at the chosen place
	d.joinAfter(i)                                       // and the next starts there, past any rest day
	return d, nil
}

// WaypointInput is a point of interest to ride through on a day.
type WaypointInput struct {
	Lat float64 `json:"waypointLat" minimum:"-90" maximum:"90" doc:"Latitude of the point to pass by."`
	Lon float64 `json:"waypointLon" minimum:"-180" maximum:"180" doc:"Longitude of the point to pass by."`
}

// Detour is the answer of add_waypoint: the day re-routed through the point.
type Detour struct {
	Stage             Day     `json:"stage" doc:"The day as stored, unchanged."`
	RouteDistance     float64 `json:"routeDistance" doc:"Kilometres of the whole day ridden through the point, start to end."`
	ExtraDistance     float64 `json:"extraDistance" doc:"Kilometres the detour adds to the day."`
	DistanceFromRoute float64 `json:"distanceFromRoute" doc:"Kilometres from the day's line to the point, as the crow flies."`
	ElevationGain     float64 `json:"elevationGain" doc:"Metres climbed on that route, when the router knows them (0 otherwise)."`
	Duration          int     `json:"durationMinutes" doc:"Estimated riding minutes of the whole day through the point."`
	Approximate       bool    `json:"approximate" doc:"True when no road router is configured: the day's own line, out to the point and back in a straight line."`
	Points            int     `json:"points" doc:"How many points draw the route (served to apps, not here)."`
	Note              string  `json:"note" doc:"What the answer means for the version you hold."`
}

// offRoute is how far p lies from the line (metres), and where along it
// (metres from its start) the nearest place is.
func offRoute(line []geo.Point, p geo.Point) (off, along float64) {
	off = -1
	walked := 0.0
	for k := range line {
		if k+1 == len(line) {
			if d := geo.Distance(line[k], p); off < 0 || d < off {
				off, along = d, walked
			}
			break
		}
		a, b := line[k], line[k+1]
		// project in a plane tangent at a: segments of a day's line are short
		cos := math.Cos(a.Lat * math.Pi / 180)
		bx, by := (b.Lon-a.Lon)*cos, b.Lat-a.Lat
		px, py := (p.Lon-a.Lon)*cos, p.Lat-a.Lat
		f := 0.0
		if n := bx*bx + by*by; n > 0 {
			f = max(0, min(1, (px*bx+py*by)/n))
		}
		q := geo.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon)}
		seg := geo.Distance(a, b)
		if d := geo.Distance(q, p); off < 0 || d < off {
			off, along = d, walked+f*seg
		}
		walked += seg
	}
	return off, along
}

func (t *Trips) waypoint(ctx context.Context, c *registry.Call, in *WaypointInput) (Detour, error) {
	d := c.Previous.(*Days)
	s := &d.Stages[d.Target]
	if t.router == nil {
		return Detour{}, registry.Fail(registry.KindUnavailable, "no router is configured")
	}
	wp := geo.Point{Lat: in.Lat, Lon: in.Lon}
	res, err := t.router.Route(ctx, []geo.Point{s.StartPoint.point(), wp, s.EndPoint.point()})
	if err != nil {
		if errors.Is(err, routing.ErrUpstream) {
			return Detour{}, &registry.Error{Kind: registry.KindUpstream, Detail: "the routing engine failed; try again later", Err: err}
		}
		return Detour{}, err
	}
	off, _ := offRoute(s.Geometry, wp)
	total, minutes := res.Distance, res.Duration.Minutes()
	if res.Approximate {
		// A straight line from start to point to end knows nothing of the
		// day's roads: ride the day's own line, and out to the point and back.
		total = geo.Length(s.Geometry)/1000 + 2*off/1000
		if res.Distance > 0 {
			minutes *= total / res.Distance
		}
	}
	if t.progress != nil { // apps following the trip see the detour too; the answer does not depend on it
		_ = t.progress.Publish(ctx, d.Trip.ID, progress.Event{Type: "route_segment_recalculated", Data: map[string]any{
			"stageId": s.ID, "reason": "poi_detour", "distance": round1(total), "elevationGain": res.ElevationGain,
			"duration": int(minutes)}})
	}
	return Detour{Stage: dayOf(s), RouteDistance: round1(total), ExtraDistance: round1(max(0, total-s.Distance)),
		DistanceFromRoute: round1(off / 1000), ElevationGain: res.ElevationGain,
		Duration: int(minutes), Approximate: res.Approximate, Points: len(res.Coordinates),
		Note: "nothing was stored and the trip's version did not move: the version you hold is still good"}, nil
}

func (t *Trips) analyze(ctx context.Context, c *registry.Call, _ *NoInput) (State, error) {
	tr := c.Previous.(*Trip)
	if tr.ComputationStatus[ComputeStages] != StatusDone {
		return State{}, noDaysYet(c, "analyze")
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
					Detail: "an analysis is under way already; " + c.ByFace("read GET /trips/{id}/detail until its statuses settle",
						"read the trip with get_trip until it settles")}
			}
		}
		if err := t.store.transition(ctx, tr.ID, locked.Generation, set); err != nil {
			return err
		}
		if err := t.store.forgetScan(ctx, tr.ID); err != nil {
			return err // a fresh analysis scans every day afresh (scan.go)
		}
		return t.jobs.Dispatch(ctx, tr.ID, locked.Generation, roots(enrichments)...)
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
		Tool: registry.Tool("choose_accommodation", "Choose one of a day's accommodation candidates by the id get_stage lists: the day ends there, the next starts there. A null id deselects. Needs the version."),

		Scope: scopes.TripsWrite, Owner: owner.Within("stageId"), RateLimit: registry.NoRateLimit,
		Load: t.loadEditable, Merge: t.mergeChoose, Validate: registry.ValidateWith(validateDays),
		Lock: registry.LockWhen(LockReason, lockedDays), Precondition: registry.RequireVersion,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{},
		Dispatches: true, Record: (*Accommodation)(nil),
		Refusals: []*registry.Error{{Kind: registry.KindConflict, Code: ErrNotACandidate,
			Detail: "The day lists no candidate with this id, or no candidates at all; the detail says why and what fixes it."},
			refusedWhileComputing},
		Handle: saveWith[ChooseInput](t),
	})

	registry.Add(reg, registry.Op[WaypointInput, Detour]{
		ID: "stages.add_waypoint", Summary: "Route a day through a point of interest",
		HTTP: registry.Post("/trips/{id}/stages/{stageId}/poi-waypoint", http.StatusOK),
		Tool: registry.Tool("add_waypoint", "Route a day through a point of interest and answer the detour (distance, climb, time). Nothing is stored; the version does not move."),

		Scope: scopes.TripsWrite, Owner: owner.Within("stageId"), RateLimit: registry.PerUser(30, time.Minute),
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
		Refusals: []*registry.Error{{Kind: registry.KindConflict, Code: "analysis_running",
			Detail: "An analysis of the trip is under way already; wait until its statuses settle."}},
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
	// Coordinates are for a place entered by hand, which no list names:
	// given, they place it where the address alone might be found wrongly.
	Lat *float64 `json:"lat,omitempty" minimum:"-90" maximum:"90" doc:"Its latitude, with lon: the address is then not located."`
	Lon *float64 `json:"lon,omitempty" minimum:"-180" maximum:"180" doc:"Its longitude, with lat."`
}

func (t *Trips) mergeManual(ctx context.Context, c *registry.Call, in *ManualInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	if d.Stages[d.Target].IsRestDay {
		d.refuse("stageId", "a rest day has no night of its own: enter the place for the riding day before it")
		return d, nil
	}
	if in.URL != nil && !webAddress(*in.URL) {
		// A link is followed by whoever reads the day (an export, a page):
		// javascript:, data: or a relative address is no website.
		d.refuse("url", "must be an http or https address")
		return d, nil
	}
	var at geo.Point
	switch {
	case (in.Lat == nil) != (in.Lon == nil):
		d.refuse("lon", "lat and lon are sent together or not at all")
		return d, nil
	case in.Lat != nil:
		at = geo.Point{Lat: *in.Lat, Lon: *in.Lon}
	case t.geocoder == nil:
		return nil, registry.Fail(registry.KindUnavailable, "no place search is configured to locate the address; send lat and lon instead")
	default:
		found, err := t.geocoder.Search(ctx, in.Address, 1)
		if err != nil || len(found) == 0 {
			d.refuse("address", "could not be located; give a town name the place search knows, or send lat and lon")
			return d, nil
		}
		at = geo.Point{Lat: found[0].Lat, Lon: found[0].Lon}
	}
	a := Accommodation{Name: in.Name, Type: "other", Source: "manual", Lat: at.Lat, Lon: at.Lon, URL: in.URL}
	addr := in.Address
	a.Address = &addr
	if in.EstimatedPriceMin != nil {
		a.EstimatedPriceMin, a.EstimatedPriceMax, a.IsExactPrice = *in.EstimatedPriceMin, *in.EstimatedPriceMin, true
	}
	i := d.Target
	s := &d.Stages[i]
	a.DistanceToEndPoint = round1(geo.Haversine(s.EndPoint.point(), geo.Point{Lat: a.Lat, Lon: a.Lon}) / 1000)
	a.ID = a.Key()
	s.Selected = &a
	only := AccommodationList{a}
	s.Accommodations = &only
	s.EndPoint = Point{Lat: a.Lat, Lon: a.Lon}
	d.joinAfter(i) // the next riding day starts there, past any rest day
	d.touched = []int{i}
	return d, nil
}

func (t *Trips) declareManual(reg *registry.Registry) {
	registry.Add(reg, registry.Op[ManualInput, StageEdit]{
		ID: "stages.manual_accommodation", Summary: "Enter a place to sleep by hand and choose it",
		HTTP: registry.Post("/trips/{id}/stages/{stageId}/accommodations/manual", http.StatusAccepted),
		Tool: registry.NotATool(registry.MotiveUIVocabulary),

		Scope: scopes.TripsWrite, Owner: registry.ByURIVariable("id", t.store.Owns).Within("stageId"), RateLimit: registry.PerUser(30, time.Minute),
		Load: t.loadEditable, Merge: t.mergeManual, Validate: registry.ValidateWith(validateDays),
		Lock: registry.LockWhen(LockReason, lockedDays), Precondition: registry.RequireVersion,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{},
		Dispatches: true, Record: (*Accommodation)(nil), Refusals: []*registry.Error{refusedWhileComputing},
		Handle: saveWith[ManualInput](t),
	})
}

// webAddress reports whether s is an absolute http or https address with
// a host.
func webAddress(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
