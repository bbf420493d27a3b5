package trips

import (
	"bytes"
	"cairn.dev/cairn/modules/route/words"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/registry"
)

// PublicURL is where people reach the server (the public_url setting): the
// addresses handed to clients (share links, file links) are absolute,
// built from it, so they work wherever they are pasted.
type PublicURL func() string

// absolute is path on the server's public address; path alone when none is
// known (a module built without one, in a unit test).
func (t *Trips) absolute(path string) string {
	if t.public == nil {
		return path
	}
	return strings.TrimRight(t.public(), "/") + path
}

// RouteGeometry is the line of every day of a trip, for a map: what get_trip
// and get_stage leave out.
type RouteGeometry struct {
	ID     string      `json:"id" doc:"The trip's id."`
	Stages []StageLine `json:"stages" doc:"One line per day, in order; empty until the days are computed."`
	tag    string
	raw    []byte // the JSON, kept (sharecache.go)
}

// EntityTag implements registry.Tagged: a shared trip's route is kept by
// revision; the owner's is not.
func (g RouteGeometry) EntityTag() string { return g.tag }

// EncodedJSON implements registry.Encoded: the kept JSON, sent without
// being scanned again.
func (g RouteGeometry) EncodedJSON() []byte { return g.raw }

// MarshalJSON writes the kept JSON, or the geometry.
func (g RouteGeometry) MarshalJSON() ([]byte, error) {
	if g.raw != nil {
		return g.raw, nil
	}
	type plain RouteGeometry // without this method
	return json.Marshal(plain(g))
}

// StageLine is the line of one day.
type StageLine struct {
	DayNumber int          `json:"dayNumber" doc:"1 for the first day."`
	Geometry  []Coordinate `json:"geometry" doc:"The day's points in riding order (a rest day holds one)."`
}

// routeOf reads the lines of trip id's days.
func (t *Trips) routeOf(ctx context.Context, id string) (RouteGeometry, error) {
	if _, err := t.store.Brief(ctx, id); err != nil {
		return RouteGeometry{}, err // deleted since the owner rule looked
	}
	stages, err := t.store.Stages(ctx, id)
	if err != nil {
		return RouteGeometry{}, err
	}
	return routeOfDays(id, stages), nil
}

// routeOfDays is the route of trip id whose days are stages.
func routeOfDays(id string, stages []Stage) RouteGeometry {
	out := RouteGeometry{ID: id, Stages: make([]StageLine, len(stages))}
	for i, s := range stages {
		line := make([]Coordinate, len(s.Geometry))
		for j, p := range s.Geometry {
			line[j] = Coordinate(p)
		}
		out.Stages[i] = StageLine{DayNumber: s.Position + 1, Geometry: line}
	}
	return out
}

// File is a trip or day exported as GPX or FIT.
type File struct {
	name, contentType string
	body              []byte
	tag               string
}

// EntityTag implements registry.Tagged: a shared trip's files are kept by
// revision; the owner's are not.
func (f File) EntityTag() string { return f.tag }

// ContentType implements registry.Download.
func (f File) ContentType() string { return f.contentType }

// FileName implements registry.Download.
func (f File) FileName() string { return f.name }

// WriteFile implements registry.Download.
func (f File) WriteFile(w io.Writer) error { _, err := w.Write(f.body); return err }

// fileFormats are the export formats, by extension.
var fileFormats = []string{"gpx", "fit"}

// encode writes track in format as a file named name.format.
func encode(track export.Track, name, format string) (File, error) {
	var buf bytes.Buffer
	if format == "fit" {
		if err := export.WriteFIT(&buf, track); err != nil {
			return File{}, err
		}
		return File{name: name + ".fit", contentType: export.ContentTypeFIT, body: buf.Bytes()}, nil
	}
	if err := export.WriteGPX(&buf, track); err != nil {
		return File{}, err
	}
	return File{name: name + ".gpx", contentType: export.ContentTypeGPX, body: buf.Bytes()}, nil
}

// stageWaypoints are the places of a day an export marks: the chosen place
// to sleep, then the other candidates, each place once.
func stageWaypoints(s *Stage) []export.Waypoint {
	var out []export.Waypoint
	seen := map[[2]float64]bool{}
	add := func(a Accommodation) {
		k := [2]float64{a.Lat, a.Lon}
		if !seen[k] {
			seen[k] = true
			out = append(out, export.Waypoint{Name: a.Name, Lat: a.Lat, Lon: a.Lon, Category: a.Type})
		}
	}
	if s.Selected != nil {
		add(*s.Selected)
	}
	if s.Accommodations != nil {
		for _, a := range *s.Accommodations {
			add(a)
		}
	}
	return out
}

// stageName is a day's name in an export: its label, or "Stage {dayNumber}".
func stageName(s *Stage, lang string) string {
	if s.Label != nil && strings.TrimSpace(*s.Label) != "" {
		return *s.Label
	}
	if s.StartLabel != nil && s.EndLabel != nil && !s.IsRestDay {
		return words.Render(lang, "file.stage_from_to", words.Args{"day": s.Position + 1, "from": *s.StartLabel, "to": *s.EndLabel})
	}
	return words.Render(lang, "file.stage", words.Args{"day": s.Position + 1})
}

// stageFile renders one day: its line, or its two ends when it has none.
func stageFile(s *Stage, lang, format string) (File, error) {
	points := []geo.Point(s.Geometry)
	if len(points) < 2 {
		points = []geo.Point{s.StartPoint.point(), s.EndPoint.point()}
	}
	track := export.Track{Name: stageName(s, lang), Points: points, Waypoints: stageWaypoints(s)}
	return encode(track, fmt.Sprintf("day-%d", s.Position+1), format)
}

// tripFile renders the whole trip as one continuous track; a trip without
// days has no file (404), while its JSON read answers.
func (t *Trips) tripFile(ctx context.Context, id, format string) (File, error) {
	tr, stages, err := t.store.TripAndDays(ctx, id)
	if err != nil {
		return File{}, err
	}
	return tripFileOf(tr, stages, format)
}

// tripFileOf renders trip tr whose days are stages as one track.
func tripFileOf(tr *Trip, stages []Stage, format string) (File, error) {
	var points []geo.Point
	var wpts []export.Waypoint
	for i := range stages {
		s := &stages[i]
		if len(points) > 0 && len(s.Geometry) > 0 {
			points = append(points, s.Geometry[1:]...)
		} else {
			points = append(points, s.Geometry...)
		}
		wpts = append(wpts, stageWaypoints(s)...)
	}
	if len(points) < 2 {
		return File{}, registry.Fail(registry.KindNotFound, "this trip has no days to export yet")
	}
	name := tr.ID
	if tr.Title != nil {
		name = *tr.Title
	}
	return encode(export.Track{Name: name, Link: tr.SourceURL, Points: points, Waypoints: wpts}, "trip", format)
}

// sharedStage resolves the day a public address names by its position
// (0 for the first day): the code's trip, and that day.
func dayIndex(c *registry.Call) (int, error) {
	raw := c.Var("index")
	i, err := strconv.Atoi(raw)
	if err != nil || i < 0 || strconv.Itoa(i) != raw {
		return 0, &registry.Error{Kind: registry.KindMalformed, Detail: "the day is named by its position: 0 for the first day",
			Violations: []registry.Violation{{Field: "index", Reason: "must be a whole number from 0 (the first day)"}}}
	}
	return i, nil
}

// declareFiles adds the geometry reads and the file exports, of a trip and
// of a day, for the owner and behind a share code.
func (t *Trips) declareFiles(reg *registry.Registry, owner, public registry.OwnerRule) {
	registry.Add(reg, registry.Op[NoInput, RouteGeometry]{
		ID: "trips.route", Summary: "The line of every day of a trip, for a map",
		HTTP: registry.Get("/trips/{id}/route"), Tool: registry.NotATool(registry.MotiveNoTextualEquivalent),

		Scope: scopes.TripsRead, Owner: owner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (RouteGeometry, error) {
			return t.routeOf(ctx, c.Var("id"))
		},
	})
	registry.Add(reg, registry.Op[NoInput, RouteGeometry]{
		ID: "shares.route", Summary: "The line of every day of a shared trip, without a token",
		HTTP: registry.Get("/s/{code}/route"), Tool: registry.NotATool(registry.MotiveNoTextualEquivalent),

		Scope: registry.Public, Owner: public, RateLimit: publicReads,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (RouteGeometry, error) {
			return t.publicRoute(ctx, c)
		},
	})

	for _, format := range fileFormats {
		registry.Add(reg, registry.Op[NoInput, File]{
			ID: "trips.file_" + format, Summary: "A trip as a " + format + " file, beside its address",
			HTTP: registry.Get("/trips/{id}." + format), Tool: registry.NotATool(registry.MotiveBinaryPayload),

			Scope: scopes.TripsRead, Owner: owner, RateLimit: registry.NoRateLimit,
			Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
			Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
			Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (File, error) {
				return t.tripFile(ctx, c.Var("id"), format)
			},
		})
		registry.Add(reg, registry.Op[NoInput, File]{
			ID: "shares.file_" + format, Summary: "A shared trip as a " + format + " file, without a token",
			HTTP: registry.Get("/s/{code}." + format), Tool: registry.NotATool(registry.MotiveBinaryPayload),

			Scope: registry.Public, Owner: public, RateLimit: publicReads,
			Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
			Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
			Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (File, error) {
				return t.publicFile(ctx, c, format, -1)
			},
		})
		registry.Add(reg, registry.Op[NoInput, File]{
			ID: "stages.file_" + format, Summary: "One day as a " + format + " file",
			HTTP: registry.Get("/trips/{id}/stages/{stageId}/export." + format), Tool: registry.NotATool(registry.MotiveBinaryPayload),

			Scope: scopes.TripsRead, Owner: owner.Within("stageId"), RateLimit: registry.NoRateLimit,
			Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
			Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
			Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (File, error) {
				r, err := t.loadDays(ctx, c)
				if err != nil {
					return File{}, err
				}
				d := r.(*Days)
				return stageFile(&d.Stages[d.Target], d.Trip.Locale, format)
			},
		})
		registry.Add(reg, registry.Op[NoInput, File]{
			ID: "shares.stage_file_" + format, Summary: "One day of a shared trip as a " + format + " file, without a token",
			HTTP: registry.Get("/s/{code}/stages/{index}." + format), Tool: registry.NotATool(registry.MotiveBinaryPayload),

			Scope: registry.Public, Owner: public.Within("index"), RateLimit: publicReads,
			Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
			Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
			Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (File, error) {
				i, err := dayIndex(c)
				if err != nil {
					return File{}, err
				}
				return t.publicFile(ctx, c, format, i)
			},
		})
	}
}
