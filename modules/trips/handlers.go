package trips

import (
	"cairn.dev/cairn/modules/route/words"
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"cairn.dev/cairn/modules/route/source"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

func (t *Trips) list(ctx context.Context, c *registry.Call, in *ListInput) (List, error) {
	key := listKey{user: c.UserID(), filter: Filter{Title: in.Title, StartFrom: in.StartDate, EndBy: in.EndDate},
		offset: in.Offset(), limit: in.Limit()}
	return t.keptList(ctx, key, utcDay(c.Now), func() (List, error) {
		rows, total, err := t.store.List(ctx, key.user, key.filter, key.offset, key.limit)
		if err != nil {
			return List{}, err
		}
		out := List{Member: make([]Summary, 0, len(rows)), PageInfo: in.Info(total)}
		for i := range rows {
			r := &rows[i].Trip
			out.Member = append(out.Member, Summary{
				ID: r.ID, Title: r.Title, StartDate: r.StartDate, EndDate: r.EndDate,
				StageCount: rows[i].StageCount, TotalDistance: round1(rows[i].TotalDistance),
				Status: listStatus(r), IsLocked: Locked(r, c.Now), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
			})
		}
		return out, nil
	})
}

// listStatus is the listing's status: draft while nothing is scheduled and
// no day exists, analyzing while any computation is pending or running.
func listStatus(t *Trip) string {
	for _, s := range t.ComputationStatus {
		if s == "pending" || s == "running" {
			return "analyzing"
		}
	}
	if t.Status == StatusReady {
		return "analyzed"
	}
	return StatusDraft
}

// mergeCreate applies the input onto the defaults: the only fields a
// creation can set are the published settings.
func (t *Trips) mergeCreate(_ context.Context, c *registry.Call, in *CreateInput) (registry.Record, error) {
	tr := &Trip{
		SourceURL:                 in.SourceURL,
		FatigueFactor:             DefaultFatigueFactor,
		ElevationPenalty:          DefaultElevationPenalty,
		MaxDistancePerDay:         DefaultMaxDistancePerDay,
		AverageSpeed:              DefaultAverageSpeed,
		DepartureHour:             DefaultDepartureHour,
		EnabledAccommodationTypes: slices.Clone(AccommodationTypes),
		Locale:                    localeOf(c),
		Status:                    StatusDraft,
		ComputationStatus:         StatusMap{},
		Version:                   1,
		Generation:                1,
	}
	tr.StartDate, tr.EndDate = in.StartDate, in.EndDate
	setIf(&tr.FatigueFactor, in.FatigueFactor)
	setIf(&tr.ElevationPenalty, in.ElevationPenalty)
	setIf(&tr.MaxDistancePerDay, in.MaxDistancePerDay)
	setIf(&tr.AverageSpeed, in.AverageSpeed)
	setIf(&tr.DepartureHour, in.DepartureHour)
	setIf(&tr.EbikeMode, in.EbikeMode)
	if in.EnabledAccommodationTypes != nil {
		tr.EnabledAccommodationTypes = in.EnabledAccommodationTypes
	}
	return tr, nil
}

// localeOf is the language a trip is created in: the request's
// (Accept-Language, en or fr), English otherwise.
func localeOf(c *registry.Call) string {
	if words.Supported(c.Locale) {
		return c.Locale
	}
	return words.English
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func (t *Trips) create(ctx context.Context, c *registry.Call, _ *CreateInput) (State, error) {
	tr := c.Merged.(*Trip)
	now := c.Now.UTC()
	tr.ID = uuid.Must(uuid.NewV7()).String()
	tr.UserID = c.UserID()
	tr.CreatedAt, tr.UpdatedAt = now, now
	plan := map[string]string{}
	for _, n := range Computations {
		plan[n] = StatusPending
		tr.ComputationStatus[n] = StatusPending
	}
	// The trip, its plan and its first job commit together (the creation
	// runs in the idempotency guard's transaction): a repeat never dispatches.
	err := storage.Tx{DB: t.store.db}.InTx(ctx, func(ctx context.Context) error {
		if err := t.store.Insert(ctx, tr); err != nil {
			return err
		}
		if err := t.store.record(ctx, tr.ID, tr.Generation, plan); err != nil {
			return err
		}
		return t.jobs.Dispatch(ctx, tr.ID, tr.Generation, ComputeRoute)
	})
	if err != nil {
		return State{}, err
	}
	s := stateOf(tr, c.Now)
	s.Next = c.ByFace("read GET /trips/{id}/detail with this id; it says partial: true until the days are computed",
		"call get_trip with this id; it says partial: true until the days are computed")
	return s, nil
}

func (t *Trips) replayCreate(ctx context.Context, c *registry.Call, id string) (any, error) {
	tr, err := t.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	s := stateOf(tr, c.Now)
	s.Next = c.ByFace("this repeats an earlier creation with the same key; read GET /trips/{id}/detail with this id",
		"this repeats an earlier creation with the same key; call get_trip with this id")
	return s, nil
}

// SettingsChange is the answer of a settings change: the trip's state.
// It answers 200 rather than 202 when nothing was left to compute (a title
// change, or values that were the stored ones).
type SettingsChange struct {
	State
	finished bool
}

// ResponseStatus implements registry.StatusChooser.
func (s SettingsChange) ResponseStatus() int { return finishedStatus(s.finished) }

// finishedStatus is the status of a write declared 202 that may finish at
// once: 200 when it left nothing to compute in the background.
func finishedStatus(finished bool) int {
	if finished {
		return http.StatusOK
	}
	return 0 // the route's own
}

func stateOf(tr *Trip, now time.Time) State {
	cs := map[string]string(tr.ComputationStatus)
	if cs == nil {
		cs = map[string]string{}
	}
	return State{ID: tr.ID, ComputationStatus: cs, IsLocked: Locked(tr, now), Version: tr.Version}
}

func (t *Trips) load(ctx context.Context, c *registry.Call) (registry.Record, error) {
	return t.store.Get(ctx, c.Var("id"))
}

func (t *Trips) state(ctx context.Context, c *registry.Call, _ *NoInput) (State, error) {
	tr, err := t.store.Brief(ctx, c.Var("id"))
	if err != nil {
		return State{}, err
	}
	return stateOf(tr, c.Now), nil
}

func (t *Trips) detail(ctx context.Context, c *registry.Call, _ *NoInput) (Detail, error) {
	return t.Detail(ctx, c.Var("id"), c.Now)
}

// PartialRetryAfter is how long, in seconds, a partial trip asks its
// reader to wait: an import and its day split take about that long, so a
// shorter poll mostly reads the same partial answer again.
const PartialRetryAfter = 2

// Detail reads trip id as get_trip answers it: settings, then one line per
// day. It checks nothing: callers are the guarded handler and the unguarded
// baseline of the benchmarks.
func (t *Trips) Detail(ctx context.Context, id string, now time.Time) (Detail, error) {
	f, err := t.store.look(ctx, id)
	if err != nil {
		return Detail{}, err
	}
	// A digest whose answer is kept is not decoded.
	if keeping(ctx) {
		if d, ok := t.details.get(id, f.revision(), utcDay(now)); ok {
			return d, nil
		}
	}
	tr, days, code, err := f.answer()
	if err != nil {
		return Detail{}, err
	}
	s := stateOf(tr, now)
	d := Detail{
		ID: tr.ID, Settings: settingsOf(tr), SourceType: tr.SourceType, Status: tr.Status,
		IsLocked: s.IsLocked, ComputationStatus: s.ComputationStatus, Version: tr.Version,
		CreatedAt: tr.CreatedAt, UpdatedAt: tr.UpdatedAt, OutOfZone: tr.OutOfZone,
		WeatherStatus: weatherStatus(tr.ComputationStatus), Coverage: tr.Coverage,
	}
	for _, a := range renderAlerts(tr.Alerts, tr.Locale) {
		d.Alerts = append(d.Alerts, TripAlert{Code: a.Code, Severity: a.Severity, Message: a.Message})
	}
	if code != "" {
		d.Shared, d.ShareURL = true, t.absolute(SharePath(code))
	}
	switch st := tr.ComputationStatus[ComputeStages]; {
	case st == StatusDone:
		d.Days = days
		if len(days) < 2 {
			d.Note = "the route gives fewer than two days (MIN_STAGES): change the pacing or the route"
		}
	case st == StatusFailed:
		// The failure's own words: a second read, for a failed trip alone.
		if tr.ComputationStatus[ComputeRoute] == StatusFailed {
			if d.Failure, err = t.store.Failure(ctx, tr.ID, tr.Generation, ComputeRoute); err != nil {
				return Detail{}, err
			}
		}
		d.Note = failureNote(d.Failure)
	default:
		d.Partial, d.RetryAfter = true, PartialRetryAfter
		d.Note = fmt.Sprintf("the days are not computed yet; read this trip again in %d seconds", PartialRetryAfter)
	}
	if keeping(ctx) && t.details != nil && d.hold(d) {
		t.details.put(id, tr.Revision, utcDay(now), d)
	}
	return d, nil
}

// failureNote words a failure of the days: what went wrong, and what to
// do about it, in words that name no tool or request (both faces read
// them).
func failureNote(failure string) string {
	switch failure {
	case FailureUnsupported:
		return "the route was not imported: its address is not one the server can read; the trip's sourceUrl must be " + source.Supported
	case FailureNotFound:
		return "the route was not found at its provider: it was removed, is private, or the id is wrong; make it public or set another sourceUrl"
	case FailureEmpty:
		return "the route at the provider has no points to ride; set another sourceUrl"
	case FailureRefused:
		return "the provider's answer was refused (a redirect off its site, or an address the server may not reach); set another sourceUrl"
	case FailureTooLarge:
		return fmt.Sprintf("the route is larger than a trip may be (at most %d days, %d points once simplified); split it into several trips, or raise maxDistancePerDay", MaxDays, MaxRoutePoints)
	case FailureProvider:
		return "the route's provider kept failing (down, or answering errors) through every retry; the address is not at fault: try again later"
	}
	return "the route could not be imported or cut into days; check the source address and update the trip"
}

// weatherStatus is the trip's weather as model.md derives it from the
// weather and wind computations: "" when neither is tracked, running while
// either is unsettled, failed when both settled and none is done.
func weatherStatus(cs StatusMap) string {
	var sts []string
	for _, n := range []string{ComputeWeather, ComputeWind} {
		if st, ok := cs[n]; ok {
			sts = append(sts, st)
		}
	}
	if len(sts) == 0 {
		return ""
	}
	done, failed := false, false
	for _, st := range sts {
		switch st {
		case StatusPending, StatusRunning:
			return StatusRunning
		case StatusDone:
			done = true
		case StatusFailed:
			failed = true
		}
	}
	if failed && !done {
		return StatusFailed
	}
	return StatusDone
}

func dayOf(s *Stage) Day {
	d := Day{
		ID: s.ID, DayNumber: s.Position + 1, Distance: round1(s.Distance),
		Ascent: float64(int(s.Ascent + 0.5)), Descent: float64(int(s.Descent + 0.5)),
		IsRestDay: s.IsRestDay, Label: s.Label,
	}
	if s.Selected != nil {
		name := s.Selected.Name
		d.Sleep = &name
	}
	if s.Alerts != nil {
		n := AlertCount{}
		for _, a := range s.Alerts.all() {
			n.add(a.Severity)
		}
		d.Alerts = &n
	}
	return d
}

func settingsOf(tr *Trip) Settings {
	return Settings{
		Title: tr.Title, SourceURL: tr.SourceURL, StartDate: tr.StartDate, EndDate: tr.EndDate,
		FatigueFactor: tr.FatigueFactor, ElevationPenalty: tr.ElevationPenalty,
		MaxDistancePerDay: tr.MaxDistancePerDay, AverageSpeed: tr.AverageSpeed,
		DepartureHour: tr.DepartureHour, EbikeMode: tr.EbikeMode,
		EnabledAccommodationTypes: slices.Clone(tr.EnabledAccommodationTypes), Locale: tr.Locale,
	}
}

// mergeUpdate applies the merge patch onto a copy of the stored trip. A
// field sent as null clears it; an absent field is kept.
func (t *Trips) mergeUpdate(_ context.Context, c *registry.Call, in *UpdateInput) (registry.Record, error) {
	tr := c.Previous.(*Trip).clone()
	if c.Sent("title") {
		tr.Title = in.Title
	}
	if c.Sent("startDate") {
		tr.StartDate = in.StartDate
	}
	if c.Sent("endDate") {
		tr.EndDate = in.EndDate
	}
	setIf(&tr.SourceURL, in.SourceURL)
	setIf(&tr.FatigueFactor, in.FatigueFactor)
	setIf(&tr.ElevationPenalty, in.ElevationPenalty)
	setIf(&tr.MaxDistancePerDay, in.MaxDistancePerDay)
	setIf(&tr.AverageSpeed, in.AverageSpeed)
	setIf(&tr.DepartureHour, in.DepartureHour)
	setIf(&tr.EbikeMode, in.EbikeMode)
	setIf(&tr.Locale, in.Locale)
	if in.EnabledAccommodationTypes != nil {
		tr.EnabledAccommodationTypes = in.EnabledAccommodationTypes
	}
	return tr, nil
}

// changes lists the settings that differ between two records, by JSON name.
func changes(a, b *Trip) []string {
	var out []string
	diff := func(name string, changed bool) {
		if changed {
			out = append(out, name)
		}
	}
	diff("title", !eqPtr(a.Title, b.Title))
	diff("sourceUrl", a.SourceURL != b.SourceURL)
	diff("startDate", !eqPtr(a.StartDate, b.StartDate))
	diff("endDate", !eqPtr(a.EndDate, b.EndDate))
	diff("fatigueFactor", a.FatigueFactor != b.FatigueFactor)
	diff("elevationPenalty", a.ElevationPenalty != b.ElevationPenalty)
	diff("maxDistancePerDay", a.MaxDistancePerDay != b.MaxDistancePerDay)
	diff("averageSpeed", a.AverageSpeed != b.AverageSpeed)
	diff("departureHour", a.DepartureHour != b.DepartureHour)
	diff("ebikeMode", a.EbikeMode != b.EbikeMode)
	diff("locale", a.Locale != b.Locale)
	diff("enabledAccommodationTypes", !sameSet(a.EnabledAccommodationTypes, b.EnabledAccommodationTypes))
	return out
}

// recutting are the settings whose change regenerates every day.
var recutting = []string{"sourceUrl", "endDate", "fatigueFactor", "elevationPenalty", "maxDistancePerDay"}

func eqPtr[T comparable](a, b *T) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func (t *Trips) settingsImpact(ctx context.Context, c *registry.Call) (registry.Impact, error) {
	prev, merged := c.Previous.(*Trip), c.Merged.(*Trip)
	changed := changes(prev, merged)
	if len(changed) == 0 {
		return registry.Impact{Summary: "nothing changes: the values sent are the stored ones", Loses: []string{}}, nil
	}
	im := registry.Impact{Summary: fmt.Sprintf("changes %d setting(s): %v", len(changed), changed), Loses: []string{}}
	if !Locked(prev, c.Now) && Locked(merged, c.Now) {
		im.Loses = append(im.Loses, "the trip becomes locked for good: a start date of today or earlier (UTC) means it has started, "+
			"and a started trip refuses every further change, this one's start date included")
	}
	recuts := slices.ContainsFunc(changed, func(f string) bool { return slices.Contains(recutting, f) })
	if !recuts {
		return im, nil
	}
	// The digest's lines name each day's chosen accommodation: the days
	// themselves, read with their geometry, were a tenth of an edit.
	_, days, _, err := t.store.Digest(ctx, prev.ID)
	if err != nil {
		return registry.Impact{}, err
	}
	im.Loses = append(im.Loses, fmt.Sprintf("the %d current days are recut from the route, with every change made to them by hand (labels, moves, rest days, added or deleted days)", len(days)))
	for _, d := range days {
		if d.Sleep != nil {
			im.Loses = append(im.Loses, fmt.Sprintf("day %d: the chosen accommodation %s", d.Day.DayNumber, registry.Quote(*d.Sleep)))
		}
	}
	return im, nil
}

func (t *Trips) updateSettings(ctx context.Context, c *registry.Call, _ *UpdateInput) (SettingsChange, error) {
	prev, merged := c.Previous.(*Trip), c.Merged.(*Trip)
	changed := changes(prev, merged)
	if len(changed) == 0 {
		s := SettingsChange{State: stateOf(prev, c.Now), finished: true} // nothing to write, nothing to recompute
		s.Next = "nothing changed, so nothing was written; the version you hold is still good"
		return s, nil
	}
	roots := replan(prev, merged, triggered(changed))
	err := storage.Tx{DB: t.store.db}.InTx(ctx, func(ctx context.Context) error {
		if err := t.store.Update(ctx, merged, prev.Version, len(roots) > 0); err != nil {
			return err
		}
		if len(roots) == 0 {
			return nil
		}
		if err := t.store.supersede(ctx, merged.ID, merged.Generation); err != nil {
			return err
		}
		pending := map[string]string{}
		for name, status := range merged.ComputationStatus {
			if status == StatusPending {
				pending[name] = status
			}
		}
		if err := t.store.record(ctx, merged.ID, merged.Generation, pending); err != nil {
			return err
		}
		return t.jobs.Dispatch(ctx, merged.ID, merged.Generation, roots...)
	})
	if err != nil {
		return SettingsChange{}, err
	}
	// stored, and when nothing is left to recompute, finished
	return SettingsChange{State: stateOf(merged, c.Now), finished: len(roots) == 0}, nil
}

func (t *Trips) deleteImpact(ctx context.Context, c *registry.Call) (registry.Impact, error) {
	return registry.Impact{
		Summary: "deletes this trip; it cannot be undone",
		Loses:   []string{"the trip and its settings", "every day of it, with chosen accommodations", "its share links, which stop answering"},
	}, nil
}

func (t *Trips) delete(ctx context.Context, c *registry.Call, _ *NoInput) (Deleted, error) {
	if err := t.store.Delete(ctx, c.Var("id")); err != nil {
		return Deleted{}, err
	}
	return Deleted{ID: c.Var("id"), Deleted: true}, nil
}
