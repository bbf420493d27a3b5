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
const StageNotFound = "stage not found in this trip; get_trip lists the days with their ids"

// loadDays reads the trip and its days, and finds the addressed stage.
func (t *Trips) loadDays(ctx context.Context, c *registry.Call) (registry.Record, error) {
	tr, err := t.store.Get(ctx, c.Var("id"))
	if err != nil {
		return nil, err
	}
	stages, err := t.store.Stages(ctx, tr.ID)
	if err != nil {
		return nil, err
	}
	d := &Days{Trip: tr, Stages: stages, Target: -1}
	if sid, ok := c.Vars["stageId"]; ok {
		d.Target = slices.IndexFunc(stages, func(s Stage) bool { return s.ID == sid })
		if d.Target < 0 {
			return nil, registry.Fail(registry.KindNotFound, StageNotFound)
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
}

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
		if in.StartPoint != nil {
			s.StartPoint = Point(in.StartPoint.point())
		}
		if in.EndPoint != nil {
			s.EndPoint = Point(in.EndPoint.point())
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
	from := nearest(route, d.Stages[i].StartPoint.point())
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
	if i+1 < len(d.Stages) {
		next := &d.Stages[i+1]
		end := nearest(route, next.EndPoint.point())
		if end > cut {
			next.Geometry = slices.Clone(route[cut : end+1])
			next.setGeometry()
			d.touched = append(d.touched, i+1)
		}
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
	switch {
	case gone.IsRestDay || collection:
		// simply removed: nothing to keep contiguous
	case i == len(d.Stages)-1:
		prev := &d.Stages[i-1]
		prev.Geometry = append(prev.Geometry, gone.Geometry[1:]...)
		prev.setGeometry()
		d.touched = []int{i - 1}
	default:
		next := &d.Stages[i+1]
		next.Geometry = append(slices.Clone(gone.Geometry), next.Geometry[1:]...)
		next.setGeometry()
		d.touched = []int{i}
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
	if d.Trip.StartDate != nil && len(d.Stages) != len(prev.Stages) {
		if start, err := time.Parse(dateLayout, *d.Trip.StartDate); err == nil {
			end := start.AddDate(0, 0, len(d.Stages)-1).Format(dateLayout)
			d.Trip.EndDate = &end // one calendar day per day, rest days included
		}
	}
	roots := replan(prev.Trip, d.Trip, []string{ComputeTerrain})
	err := storage.Tx{DB: t.store.db}.InTx(ctx, func(ctx context.Context) error {
		if err := t.store.Update(ctx, d.Trip, prev.Trip.Version, true); err != nil {
			return err
		}
		if err := t.store.ReplaceStages(ctx, d.Trip.ID, d.Stages); err != nil {
			return err
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
	out := StageEdit{State: stateOf(d.Trip, c.Now)}
	if len(d.touched) > 0 && d.touched[0] < len(d.Stages) {
		day := dayOf(&d.Stages[d.touched[0]])
		out.Stage = &day
	}
	out.Next = "the days changed; send this version with your next edit"
	return out, nil
}

// saveWith adapts saveDays to an operation's input type: every stage edit
// writes the same way once its merge has built the new days.
func saveWith[I any](t *Trips) func(context.Context, *registry.Call, *I) (StageEdit, error) {
	return func(ctx context.Context, c *registry.Call, _ *I) (StageEdit, error) { return t.saveDays(ctx, c) }
}
