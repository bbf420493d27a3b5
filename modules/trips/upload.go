package trips

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/pacing"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// UploadInput is the form of a GPX upload: the settings of a creation,
// judged like them (a bad value is refused by name, never dropped).
type UploadInput struct {
	SettingsInput
}

// UploadFile is the form field carrying the GPX file.
const UploadFile = "gpxFile"

// MaxUploadBytes bounds an uploaded file (pipeline.md §2).
const MaxUploadBytes = 30 << 20

var uploadTypes = []string{"application/gpx+xml", "application/xml", "text/xml", "text/plain", "application/octet-stream", ""}

// Uploaded is the answer of an upload: the trip with its days, cut at once.
type Uploaded struct {
	State
	Title              *string `json:"title,omitempty" doc:"The track's name, when the file has one."`
	Status             string  `json:"status" doc:"ready with at least two days, draft otherwise."`
	TotalDistance      float64 `json:"totalDistance" doc:"Kilometres of the whole route."`
	TotalElevation     float64 `json:"totalElevation" doc:"Metres climbed over the whole route."`
	TotalElevationLoss float64 `json:"totalElevationLoss" doc:"Metres descended over the whole route."`
	Days               []Day   `json:"days" doc:"One line per day."`
}

func (t *Trips) mergeUpload(ctx context.Context, c *registry.Call, in *UploadInput) (registry.Record, error) {
	r, err := t.mergeCreate(ctx, c, &CreateInput{SettingsInput: in.SettingsInput})
	if err != nil {
		return nil, err
	}
	tr := r.(*Trip)
	src := "gpx_upload"
	tr.SourceType = &src
	return tr, nil
}

// upload parses and paces synchronously, stores the trip with its route and
// days in one transaction, and leaves the enrichments to the queue.
func (t *Trips) upload(ctx context.Context, c *registry.Call, _ *UploadInput) (Uploaded, error) {
	f, ok := c.Files[UploadFile]
	switch {
	case !ok:
		return Uploaded{}, malformed("the gpxFile field is required")
	case f.Size == 0:
		return Uploaded{}, malformed("the gpxFile is empty")
	case f.Size > MaxUploadBytes:
		return Uploaded{}, malformed("the gpxFile is larger than 30 MB")
	case !strings.EqualFold(filepath.Ext(f.Name), ".gpx"):
		return Uploaded{}, malformed("the gpxFile must have the .gpx extension")
	case !slices.Contains(uploadTypes, strings.ToLower(strings.TrimSpace(strings.Split(f.ContentType, ";")[0]))):
		return Uploaded{}, malformed("the gpxFile must be sent as application/gpx+xml, application/xml, text/xml or text/plain")
	}
	// From here to the answer the upload holds its file's points and
	// their stored text: a slot bounds how many do so at once.
	release, err := t.uploads.acquire(ctx)
	if err != nil {
		return Uploaded{}, err
	}
	defer release()
	rd, err := f.Open()
	if err != nil {
		return Uploaded{}, err
	}
	defer rd.Close()
	parsed, err := gpx.Parser{MaxBytes: MaxUploadBytes}.Parse(contextReader{ctx, rd})
	if err != nil {
		if ctx.Err() != nil {
			return Uploaded{}, ctx.Err() // the request is gone
		}
		return Uploaded{}, gpxRefusal(err)
	}
	tr := c.Merged.(*Trip)
	now := c.Now.UTC()
	tr.ID, tr.UserID, tr.CreatedAt, tr.UpdatedAt = uuid.Must(uuid.NewV7()).String(), c.UserID(), now, now
	tr.SourceURL = ""
	if parsed.Title != "" {
		title := parsed.Title
		tr.Title = &title
	}
	imp := Imported{Title: parsed.Title, SourceType: "gpx_upload", Tracks: splitTracks(parsed)}
	// The day count is judged from the distance before the route is
	// simplified: the cheap refusal of a file too long comes first.
	err = judgeSize(tr, imp)
	var rec *RouteRecord
	if err == nil {
		rec, err = routeRecord(ctx, tr.ID, imp)
	}
	if ctx.Err() != nil {
		return Uploaded{}, ctx.Err()
	}
	var size *SizeError
	if errors.As(err, &size) {
		return Uploaded{}, sizeRefusal(size)
	}
	if err != nil {
		return Uploaded{}, registry.Invalid("the file has no usable track", registry.Violation{Field: UploadFile, Reason: "has fewer than two track points"})
	}
	rec.SourceType = "gpx_upload"
	planned, planErr := Plan(ctx, tr, rec)
	if planErr != nil && !errors.Is(planErr, pacing.ErrMinStages) {
		return Uploaded{}, planErr
	}
	stages := make([]Stage, len(planned))
	for i, s := range planned {
		stages[i] = Stage{ID: uuid.Must(uuid.NewV7()).String(), TripID: tr.ID, Position: i,
			Distance: s.Distance, Ascent: s.Ascent, Descent: s.Descent, StartPoint: Point(s.Start), EndPoint: Point(s.End), Geometry: s.Geometry}
	}
	labelDays(ctx, t.namer, stages, nil)
	plan := map[string]string{ComputeRoute: StatusDone, ComputeStages: StatusDone}
	for _, n := range enrichments {
		plan[n] = StatusPending
	}
	tr.ComputationStatus = StatusMap(plan)
	err = storage.Tx{DB: t.store.db}.InTx(ctx, func(ctx context.Context) error {
		if err := t.store.Insert(ctx, tr); err != nil {
			return err
		}
		if err := t.store.SaveRoute(ctx, rec); err != nil {
			return err
		}
		if err := t.store.ReplaceStages(ctx, tr.ID, stages); err != nil {
			return err
		}
		if err := t.store.record(ctx, tr.ID, tr.Generation, plan); err != nil {
			return err
		}
		return t.jobs.Dispatch(ctx, tr.ID, tr.Generation, roots(enrichments)...)
	})
	if err != nil {
		return Uploaded{}, err
	}
	out := uploadedOf(tr, rec, stages, c.Now)
	out.Status = StatusDraft
	if len(stages) >= 2 {
		out.Status = StatusReady
	}
	out.Next = c.ByFace("the days are cut; the terrain alerts follow: read the trip with GET /trips/{id}/detail",
		"the days are cut; the terrain alerts follow: read the trip with get_trip")
	return out, nil
}

// contextReader fails its reads once ctx is done, so parsing a large file
// stops when the request that sent it is gone.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// splitTracks cuts a parsed file into its tracks, without copying points.
func splitTracks(r gpx.Route) [][]geo.Point {
	if len(r.TrackStarts) == 0 {
		return [][]geo.Point{r.Points}
	}
	out := make([][]geo.Point, len(r.TrackStarts))
	for i, start := range r.TrackStarts {
		end := len(r.Points)
		if i+1 < len(r.TrackStarts) {
			end = r.TrackStarts[i+1]
		}
		out[i] = r.Points[start:end]
	}
	return out
}

// malformed is a 400 about the uploaded file, naming it.
func malformed(detail string) error {
	return &registry.Error{Kind: registry.KindMalformed, Detail: detail,
		Violations: []registry.Violation{{Field: UploadFile, Reason: detail}}}
}

// gpxRefusal names what is wrong with a file, without quoting it at length.
func gpxRefusal(err error) error {
	reason := "is not a GPX file that can be read"
	var se *gpx.SyntaxError
	switch {
	case errors.Is(err, gpx.ErrTooLarge):
		return malformed("the gpxFile is larger than 30 MB")
	case errors.Is(err, gpx.ErrDoctype):
		reason = "contains a DOCTYPE, which is refused"
	case errors.Is(err, gpx.ErrNoTrackPoints):
		reason = "has no track point (trkpt)"
	case errors.Is(err, gpx.ErrNotGPX):
		reason = "is not GPX"
	case errors.As(err, &se):
		reason = fmt.Sprintf("is malformed at line %d", se.Line)
	}
	return registry.Invalid("the file was refused; nothing was created", registry.Violation{Field: UploadFile, Reason: reason})
}

// uploadedOf is an upload's answer: the trip's state, the route's totals
// and its days, as the upload made them and as a replay reads them back.
func uploadedOf(tr *Trip, rec *RouteRecord, stages []Stage, now time.Time) Uploaded {
	out := Uploaded{State: stateOf(tr, now), Title: tr.Title, Status: tr.Status,
		TotalDistance: round1(rec.Distance), TotalElevation: float64(int(rec.Ascent + 0.5)),
		TotalElevationLoss: float64(int(rec.Descent + 0.5)), Days: make([]Day, len(stages))}
	for i := range stages {
		out.Days[i] = dayOf(&stages[i])
	}
	return out
}
