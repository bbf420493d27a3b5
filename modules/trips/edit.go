package trips

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// Days is a trip with its days: the record stage operations load, merge,
// judge and write, as one critical section with one version bump.
type Days struct {
	Trip   *Trip
	Stages []Stage
	Target int // index of the addressed stage; -1 when none

	touched    []int // indexes (after the edit) of the stages the edit made or changed
	violations []registry.Violation
}

// RecordVersion implements registry.Record: the trip's structural version.
func (d *Days) RecordVersion() int64 { return d.Trip.Version }

func (d *Days) clone() *Days {
	c := &Days{Trip: d.Trip.clone(), Stages: make([]Stage, len(d.Stages)), Target: d.Target}
	for i, s := range d.Stages {
		c.Stages[i] = s
		c.Stages[i].Geometry = slices.Clone(s.Geometry)
	}
	return c
}

func (d *Days) refuse(field, reason string) {
	d.violations = append(d.violations, registry.Violation{Field: field, Reason: reason})
}

// StageNotFound is the one answer for a stage that is not one of the trip's.
const StageNotFound = "stage not found in this trip"

// stageNotFound refuses a stage that is not one of the trip's, saying in
// the call's face where the days' ids are listed.
func stageNotFound(c *registry.Call) *registry.Error {
	return registry.Fail(registry.KindNotFound, StageNotFound+"; "+
		c.ByFace("GET /trips/{id}/detail lists the days with their ids", "get_trip lists the days with their ids"))
}

// noDaysYet refuses work on days that are not computed yet (an analysis,
// a recomputation, a scan), saying in the call's face what to wait for.
func noDaysYet(c *registry.Call, what string) *registry.Error {
	return registry.Invalid("nothing to "+what+" yet", registry.Violation{Field: "id", Reason: "the trip has no days yet; " +
		c.ByFace("wait until GET /trips/{id}/detail says partial: false", "wait until get_trip says partial: false")})
}

// loadDays reads the trip and its days, and finds the addressed stage.
func (t *Trips) loadDays(ctx context.Context, c *registry.Call) (registry.Record, error) {
	return t.readDays(ctx, c, false)
}

// loadEditable is loadDays for an edit of the days: it refuses while the
// days are being computed, since the pipeline is about to replace them and
// the edit would be lost.
func (t *Trips) loadEditable(ctx context.Context, c *registry.Call) (registry.Record, error) {
	return t.readDays(ctx, c, true)
}

// DaysComputing is the code of the refusal of an edit made while the days
// are being computed.
const DaysComputing = "days_computing"

// refusedWhileComputing documents the refusal of daysComputing on the
// operations that edit days.
var refusedWhileComputing = &registry.Error{Kind: registry.KindConflict, Code: DaysComputing,
	Detail: "The days are being computed and will replace the current ones; read the trip until partial is false, then edit."}

// daysComputing refuses an edit of days that are about to be replaced.
func daysComputing(c *registry.Call) *registry.Error {
	return &registry.Error{Kind: registry.KindConflict, Code: DaysComputing,
		Detail: "the days of this trip are being computed and will replace the current ones; nothing was written; " +
			c.ByFace("read GET /trips/{id}/detail until it says partial: false, then send the edit again with its ETag",
				"call get_trip until it says partial: false, then send the edit again with the version it publishes")}
}

// computingDays reports whether the route or the day split is still to
// settle: the days a caller sees are not the ones the pipeline will store.
func computingDays(tr *Trip) bool {
	for _, n := range []string{ComputeRoute, ComputeStages} {
		if st := tr.ComputationStatus[n]; st == StatusPending || st == StatusRunning {
			return true
		}
	}
	return false
}

func (t *Trips) readDays(ctx context.Context, c *registry.Call, editable bool) (registry.Record, error) {
	tr, err := t.store.Get(ctx, c.Var("id"))
	if err != nil {
		return nil, err
	}
	if editable && computingDays(tr) && !Locked(tr, c.Now) {
		return nil, daysComputing(c) // a started trip answers its lock instead, the truer refusal
	}
	stages, err := t.store.Stages(ctx, tr.ID)
	if err != nil {
		return nil, err
	}
	d := &Days{Trip: tr, Stages: stages, Target: -1}
	if sid, ok := c.Vars["stageId"]; ok {
		d.Target = slices.IndexFunc(stages, func(s Stage) bool { return s.ID == sid })
		if d.Target < 0 {
			return nil, stageNotFound(c)
		}
	}
	return d, nil
}

// CoordinateInput is a point given by the caller.
type CoordinateInput struct {
	Lat float64  `json:"lat" minimum:"-90" maximum:"90" doc:"Latitude in degrees."`
	Lon float64  `json:"lon" minimum:"-180" maximum:"180" doc:"Longitude in degrees."`
	Ele *float64 `json:"ele,omitempty" minimum:"-500" maximum:"9000" doc:"Elevation in metres, -500 to 9000 (default 0)."`
}

func (c *CoordinateInput) point() geo.Point {
	p := geo.Point{Lat: c.Lat, Lon: c.Lon}
	if c.Ele != nil {
		p.Ele = *c.Ele
	}
	return p
}

// AddStageInput adds a day riding straight from startPoint to endPoint.
type AddStageInput struct {
	StartPoint *CoordinateInput `json:"startPoint" doc:"Where the new day starts (action add: required)."`
	EndPoint   *CoordinateInput `json:"endPoint" doc:"Where the new day ends (action add: required)."`
	Position   *int             `json:"position,omitempty" minimum:"0" doc:"0-based place of the new day (action add; default: after the last)."`
	Label      *string          `json:"label,omitempty" maxLength:"255" doc:"A name for the day."`
}

// UpdateStageInput changes one day: its label, its ends, or its length.
type UpdateStageInput struct {
	Label      *string          `json:"label,omitempty" maxLength:"255" nullable:"true" doc:"A name for the day; null removes it."`
	StartPoint *CoordinateInput `json:"startPoint,omitempty" doc:"New start of the day (a straight line to its end)."`
	EndPoint   *CoordinateInput `json:"endPoint,omitempty" doc:"New end of the day (a straight line from its start)."`
	Distance   *float64         `json:"distance,omitempty" exclusiveMinimum:"0" doc:"New length in km (action update), recut along the route; the next day starts where it ends."`
}

// MoveStageInput moves one day to another place in the order.
type MoveStageInput struct {
	Position int `json:"toIndex" minimum:"0" doc:"0-based place to move the day to (action move: required)."`
}

// StageEdit is the answer of a stage edit: the trip's new version and
// statuses, and the day the edit made or changed (none for a deletion).
type StageEdit struct {
	State
	Stage *Day `json:"stage,omitempty" doc:"The day made or changed; absent after a deletion."`
	// EndDate and EndDateMoved say what the day window rule did: a dated
	// trip ends startDate + days - 1, so adding or removing a day moves it.
	EndDate      *string `json:"endDate,omitempty" doc:"The trip's end date after the edit, when it has a start date (one calendar day per day, rest days included)."`
	EndDateMoved bool    `json:"endDateMoved" doc:"True when the edit moved the end date, because it changed how many days the trip has."`
	finished     bool    // nothing changed, nothing dispatched: 200, not 202
}

// ResponseStatus implements registry.StatusChooser: 200 for an edit that
// changed nothing, the route's 202 otherwise.
func (s StageEdit) ResponseStatus() int { return finishedStatus(s.finished) }

func (t *Trips) mergeAdd(_ context.Context, c *registry.Call, in *AddStageInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	if in.StartPoint == nil {
		d.refuse("startPoint", "is required")
	}
	if in.EndPoint == nil {
		d.refuse("endPoint", "is required")
	}
	pos := len(d.Stages)
	if in.Position != nil {
		pos = *in.Position
	}
	if pos < 0 || pos > len(d.Stages) {
		d.refuse("position", fmt.Sprintf("must be between 0 and %d", len(d.Stages)))
	}
	if len(d.Stages) >= MaxDays {
		d.refuse("startPoint", fmt.Sprintf("cannot start a new day: the trip has %d days, the most a trip may have", MaxDays))
	}
	if len(d.violations) > 0 {
		return d, nil
	}
	a, b := in.StartPoint.point(), in.EndPoint.point()
	s := Stage{ID: uuid.Must(uuid.NewV7()).String(), TripID: d.Trip.ID, StartPoint: Point(a), EndPoint: Point(b),
		Geometry: Points{a, b}, Distance: geo.Distance(a, b) / 1000, Label: in.Label}
	d.Stages = slices.Insert(d.Stages, pos, s)
	d.touched = []int{pos}
	return d, nil
}

func (t *Trips) mergeUpdateStage(ctx context.Context, c *registry.Call, in *UpdateStageInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	i := d.Target
	s := &d.Stages[i]
	if c.Sent("label") {
		s.Label = in.Label
	}
	d.touched = []int{i}
	switch {
	case in.Distance != nil:
		if in.StartPoint != nil || in.EndPoint != nil {
			d.refuse("distance", "cannot be sent with startPoint or endPoint")
			return d, nil
		}
		route, err := t.store.Route(ctx, d.Trip.ID)
		var perm *Permanent
		if errors.As(err, &perm) {
			d.refuse("distance", "this trip has no stored route to recut along")
			return d, nil
		}
		if err != nil {
			return nil, err
		}
		recut(d, i, *in.Distance, route.Decimated)
	case in.StartPoint != nil || in.EndPoint != nil:
		if s.IsRestDay {
			d.refuse("stageId", "a rest day has no ends of its own; move the ends of the days around it")
			return d, nil
		}
		if in.StartPoint != nil {
			s.StartPoint = Point(in.StartPoint.point())
			d.joinBefore(i) // the day before ends where this one now starts
		}
		if in.EndPoint != nil {
			s.EndPoint = Point(in.EndPoint.point())
			d.joinAfter(i) // and the next one starts where it now ends
		}
		a, b := s.StartPoint.point(), s.EndPoint.point()
		s.Geometry, s.Distance = Points{a, b}, geo.Distance(a, b)/1000
	}
	return d, nil
}

// recut walks km along the route from the point nearest the day's start and
// ends the day at the first point reaching it; the next day starts there and
// runs to its unchanged end. Cutting the last day leaves the rest of the
// route as a new last day.
func recut(d *Days, i int, km float64, route []geo.Point) {
	if len(route) < 2 {
		d.refuse("distance", "this trip has no stored route to recut along")
		return
	}
	if d.Stages[i].IsRestDay {
		d.refuse("distance", "a rest day has no length to recut")
		return
	}
	from := nearest(route, d.Stages[i].StartPoint.point())
	if left := geo.Length(route[from:]) / 1000; km > left {
		d.refuse("distance", fmt.Sprintf("is longer than the route left from this day's start (%.1f km)", left))
		return
	}
	cut, walked := from, 0.0
	for cut+1 < len(route) && walked < km*1000 {
		walked += geo.Distance(route[cut], route[cut+1])
		cut++
	}
	if cut == from {
		d.refuse("distance", "the route ends where this day starts")
		return
	}
	s := &d.Stages[i]
	s.Geometry = slices.Clone(route[from : cut+1])
	s.setGeometry()
	if k := d.nextRide(i); k >= 0 {
		next := &d.Stages[k]
		end := nearest(route, next.EndPoint.point())
		if end > cut {
			next.Geometry = slices.Clone(route[cut : end+1])
			// it keeps its own end exactly: the day after starts there, and
			// the nearest route point may lie a few metres off it
			next.Geometry[len(next.Geometry)-1] = next.EndPoint.point()
			next.setGeometry()
			d.touched = append(d.touched, k)
		}
		d.joinAfter(i)
	} else if cut+1 < len(route) {
		rest := Stage{ID: uuid.Must(uuid.NewV7()).String(), TripID: d.Trip.ID, Geometry: slices.Clone(route[cut:])}
		rest.setGeometry()
		d.Stages = append(d.Stages, rest)
		d.touched = append(d.touched, len(d.Stages)-1)
	}
}

// setGeometry derives a day's ends, length and climbing from its geometry.
func (s *Stage) setGeometry() {
	g := s.Geometry
	s.StartPoint, s.EndPoint = Point(g[0]), Point(g[len(g)-1])
	s.Distance = geo.Length(g) / 1000
	s.Ascent, s.Descent = 0, 0
	for k := 1; k < len(g); k++ {
		if dz := g[k].Ele - g[k-1].Ele; dz > 0 {
			s.Ascent += dz
		} else {
			s.Descent -= dz
		}
	}
}

// nextRide is the index of the first riding day after day i, or -1.
func (d *Days) nextRide(i int) int {
	for k := i + 1; k < len(d.Stages); k++ {
		if !d.Stages[k].IsRestDay {
			return k
		}
	}
	return -1
}

// prevRide is the index of the last riding day before day i, or -1.
func (d *Days) prevRide(i int) int {
	for k := i - 1; k >= 0; k-- {
		if !d.Stages[k].IsRestDay {
			return k
		}
	}
	return -1
}

// restAt puts rest day k where the rider stopped.
func (d *Days) restAt(k int, at Point) {
	r := &d.Stages[k]
	r.StartPoint, r.EndPoint, r.Geometry = at, at, Points{at.point()}
}

// joinAfter keeps the chain of days whole after day i's end moved: the rest
// days right after it sit there, and the next riding day starts there.
func (d *Days) joinAfter(i int) {
	at := d.Stages[i].EndPoint
	for k := i + 1; k < len(d.Stages); k++ {
		if !d.Stages[k].IsRestDay {
			d.Stages[k].StartPoint = at
			return
		}
		d.restAt(k, at)
	}
}

// joinBefore keeps the chain whole after day i's start moved: the rest
// days right before it sit there, and the riding day before ends there.
func (d *Days) joinBefore(i int) {
	at := d.Stages[i].StartPoint
	for k := i - 1; k >= 0; k-- {
		if !d.Stages[k].IsRestDay {
			d.Stages[k].EndPoint = at
			return
		}
		d.restAt(k, at)
	}
}

func nearest(route []geo.Point, p geo.Point) int {
	best, bestD := 0, -1.0
	for k, q := range route {
		if d := geo.Haversine(p, q); bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func (t *Trips) mergeMove(_ context.Context, c *registry.Call, in *MoveStageInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	from, to := d.Target, in.Position
	switch {
	case to < 0 || to >= len(d.Stages):
		d.refuse("toIndex", fmt.Sprintf("must be between 0 and %d", len(d.Stages)-1))
	case to == from:
		d.refuse("toIndex", "is the day's current place")
	default:
		s := d.Stages[from]
		d.Stages = slices.Insert(slices.Delete(d.Stages, from, from+1), to, s)
		d.touched = []int{to}
	}
	return d, nil
}

func (t *Trips) mergeDelete(_ context.Context, c *registry.Call, _ *NoInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	i := d.Target
	if len(d.Stages) <= 2 {
		d.refuse("stageId", "a trip keeps at least two days")
		return d, nil
	}
	gone := d.Stages[i]
	collection := d.Trip.SourceType != nil && *d.Trip.SourceType == "komoot_collection"
	next, prev := d.nextRide(i), d.prevRide(i)
	switch {
	case gone.IsRestDay || collection:
		// simply removed: nothing to keep contiguous
	case next >= 0:
		// absorbed by the next riding day; rest days between stay where
		// the rider now stops, the deleted day's start
		n := &d.Stages[next]
		n.Geometry = append(slices.Clone(gone.Geometry), n.Geometry[1:]...)
		n.setGeometry()
		for k := i + 1; k < next; k++ {
			d.restAt(k, gone.StartPoint)
		}
		d.touched = []int{next - 1}
	case prev >= 0:
		p := &d.Stages[prev]
		p.Geometry = append(p.Geometry, gone.Geometry[1:]...)
		p.setGeometry()
		d.joinAfter(prev) // rest days between move to its new end
		d.touched = []int{prev}
	}
	d.Stages = slices.Delete(d.Stages, i, i+1)
	return d, nil
}

func (t *Trips) mergeRestDay(_ context.Context, c *registry.Call, _ *NoInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	i := d.Target
	switch {
	case d.Stages[i].IsRestDay:
		d.refuse("stageId", "this day is a rest day already; rest days cannot be adjacent")
	case i+1 < len(d.Stages) && d.Stages[i+1].IsRestDay:
		d.refuse("stageId", "the next day is a rest day already; rest days cannot be adjacent")
	case len(d.Stages) >= MaxDays:
		d.refuse("stageId", fmt.Sprintf("cannot be followed by a rest day: the trip has %d days, the most a trip may have", MaxDays))
	default:
		end := d.Stages[i].EndPoint
		rest := Stage{ID: uuid.Must(uuid.NewV7()).String(), TripID: d.Trip.ID, StartPoint: end, EndPoint: end,
			Geometry: Points{end.point()}, IsRestDay: true}
		d.Stages = slices.Insert(d.Stages, i+1, rest)
		d.touched = []int{i + 1}
	}
	return d, nil
}

func validateDays(r registry.Record) []registry.Violation { return r.(*Days).violations }

func lockedDays(r registry.Record, now time.Time) bool { return Locked(r.(*Days).Trip, now) }

// saveDays writes an edit: the days renumbered, the trip's version bumped
// (conditionally), the day window kept, and the terrain analysis re-run
// under a new generation.
func (t *Trips) saveDays(ctx context.Context, c *registry.Call) (StageEdit, error) {
	prev, d := c.Previous.(*Days), c.Merged.(*Days)
	for k := range d.Stages {
		d.Stages[k].Position = k
		d.Stages[k].TripID = d.Trip.ID
	}
	if sameDays(prev.Stages, d.Stages) {
		// Nothing changes: nothing is written and the version stays, so a
		// repeat, or a deselection with nothing chosen, costs no reload.
		out := StageEdit{State: stateOf(prev.Trip, c.Now), EndDate: prev.Trip.EndDate}
		out.finished = true
		if t := prev.Target; t >= 0 && t < len(prev.Stages) {
			day := dayOf(&prev.Stages[t])
			out.Stage = &day
		}
		out.Next = "nothing changed, so nothing was written; the version you hold is still good"
		return out, nil
	}
	moved := false
	if d.Trip.StartDate != nil && len(d.Stages) != len(prev.Stages) {
		if start, err := time.Parse(dateLayout, *d.Trip.StartDate); err == nil {
			end := start.AddDate(0, 0, len(d.Stages)-1).Format(dateLayout)
			moved = !eqPtr(prev.Trip.EndDate, &end)
			d.Trip.EndDate = &end // one calendar day per day, rest days included
		}
	}
	// A change of labels alone leaves every day's line, ends and dates as
	// they were: nothing an enrichment reads has moved, so the days keep
	// what was computed for them and nothing runs again (a label edit of a
	// 30-day trip re-ran every enrichment of every day). An enrichment
	// running beside it read the same lines and writes only what it found,
	// so its plan stands. Not while the days are being cut: the cut would
	// replace the edited days, and is planned again.
	labelsOnly := !beingCut(prev.Trip.ComputationStatus) && sameButLabels(prev.Stages, d.Stages)
	labelDays(ctx, t.namer, d.Stages, prev.Stages)
	var triggered []string
	if !labelsOnly {
		// A day whose ends or length changed is recalculated (pipeline.md
		// §6): its candidates are scanned again, with every enrichment that
		// reads the days' lines and ends.
		for _, k := range d.touched {
			if k < len(d.Stages) && d.Stages[k].Selected == nil {
				d.Stages[k].Accommodations = nil
			}
		}
		triggered = recalculated(d.Trip)
	}
	roots := replan(prev.Trip, d.Trip, triggered)
	err := storage.Tx{DB: t.store.db}.InTx(ctx, func(ctx context.Context) error {
		// Without a new plan the statuses are not written: those read
		// before the edit may be behind an enrichment's since.
		if err := t.store.Update(ctx, d.Trip, prev.Trip.Version, len(roots) > 0); err != nil {
			return err
		}
		if err := t.store.ReviseStages(ctx, d.Trip.ID, prev.Stages, d.Stages); err != nil {
			return err
		}
		if len(roots) == 0 {
			return nil // a change of labels alone
		}
		if err := t.store.supersede(ctx, d.Trip.ID, d.Trip.Generation); err != nil {
			return err
		}
		pending := map[string]string{}
		for name, status := range d.Trip.ComputationStatus {
			if status == StatusPending {
				pending[name] = status
			}
		}
		if err := t.store.record(ctx, d.Trip.ID, d.Trip.Generation, pending); err != nil {
			return err
		}
		return t.jobs.Dispatch(ctx, d.Trip.ID, d.Trip.Generation, roots...)
	})
	if err != nil {
		return StageEdit{}, err
	}
	out := StageEdit{State: stateOf(d.Trip, c.Now), EndDate: d.Trip.EndDate, EndDateMoved: moved}
	if len(d.touched) > 0 && d.touched[0] < len(d.Stages) {
		day := dayOf(&d.Stages[d.touched[0]])
		out.Stage = &day
	}
	out.Next = "the days changed; send this version with your next edit"
	if moved {
		out.Next = fmt.Sprintf("the trip now has %d days, so its end date moved to %s (one calendar day per day, rest days included); ",
			len(d.Stages), *d.Trip.EndDate) + out.Next
	}
	return out, nil
}

// recalculated are what a stage edit re-runs: every enrichment that reads
// the days (all of them on a dated trip; the date rules otherwise claim
// nothing and are run all the same, cheaply, so they settle).
func recalculated(*Trip) []string { return slices.Clone(enrichments) }

// beingCut reports whether the trip's days are being made: its route read
// or cut into days, either of which replaces them.
func beingCut(statuses StatusMap) bool {
	for _, name := range []string{ComputeRoute, ComputeStages} {
		if status, planned := statuses[name]; planned && !Settled(status) {
			return true
		}
	}
	return false
}

// sameButLabels reports whether an edit changed no day but for its label.
func sameButLabels(a, b []Stage) bool {
	return slices.EqualFunc(a, b, func(x, y Stage) bool {
		return x.ID == y.ID && !slices.ContainsFunc(changedColumns(&x, &y), func(c string) bool { return c != labelColumn })
	})
}

// labelColumn is the column of Stage.Label.
var labelColumn = stageColumns[stageField("Label")]

// sameDays reports whether an edit left every day as it was.
func sameDays(a, b []Stage) bool {
	return slices.EqualFunc(a, b, func(x, y Stage) bool { return x.ID == y.ID && len(changedColumns(&x, &y)) == 0 })
}

// saveWith adapts saveDays to an operation's input type: every stage edit
// writes the same way once its merge has built the new days.
func saveWith[I any](t *Trips) func(context.Context, *registry.Call, *I) (StageEdit, error) {
	return func(ctx context.Context, c *registry.Call, _ *I) (StageEdit, error) { return t.saveDays(ctx, c) }
}
