package trips

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// Share is a trip's public link: revocation is a soft delete, and at most
// one share per trip is active (a partial unique index decides).
type Share struct {
	bun.BaseModel `bun:"table:trip_shares"`

	ID        string     `bun:"id,pk"`
	TripID    string     `bun:"trip_id"`
	Token     string     `bun:"token"`      // 64 hex: shown to the owner, used by no read
	ShortCode string     `bun:"short_code"` // 8 characters of [A-Za-z0-9_-]: the public address
	CreatedAt time.Time  `bun:"created_at"`
	DeletedAt *time.Time `bun:"deleted_at"`
}

// Shared is the answer of share_trip: the public address and its file.
type Shared struct {
	ID        string    `json:"id" doc:"The share's id."`
	Token     string    `json:"token" doc:"The share's secret (64 hex); no read needs it."`
	ShortCode string    `json:"shortCode" doc:"The public code."`
	URL       string    `json:"url" doc:"The public address of the trip; anyone with it can read the trip."`
	GPXURL    string    `json:"gpxUrl" doc:"The trip as a GPX file, needing no token: hand this link over rather than the file."`
	Active    bool      `json:"active" doc:"True until revoked with unshare_trip."`
	CreatedAt time.Time `json:"createdAt" doc:"When the link was made."`
	Version   int64     `json:"version" doc:"The trip's version, unchanged by sharing: the one you hold stays good."`
}

// Unshared is the answer of unshare_trip (HTTP answers 204 without it).
type Unshared struct {
	Revoked bool  `json:"revoked" doc:"Always true: the public address and its files answer 404 from now on."`
	Version int64 `json:"version" doc:"The trip's version, unchanged by revoking: the one you hold stays good."`
}

// ErrShareExists refuses a second active share of a trip.
var ErrShareExists = &registry.Error{Kind: registry.KindConflict, Code: "share_exists",
	Detail: "this trip is shared already; unshare it first to get a new address"}

func newShare(tripID string) *Share {
	token := make([]byte, 32)
	code := make([]byte, 6) // 48 random bits
	_, _ = rand.Read(token)
	_, _ = rand.Read(code)
	return &Share{ID: uuid.Must(uuid.NewV7()).String(), TripID: tripID, Token: hex.EncodeToString(token),
		ShortCode: base64.RawURLEncoding.EncodeToString(code), CreatedAt: time.Now().UTC()}
}

func (t *Trips) share(ctx context.Context, c *registry.Call, _ *NoInput) (Shared, error) {
	tr, err := t.store.Get(ctx, c.Var("id"))
	if err != nil {
		return Shared{}, err
	}
	sh := newShare(tr.ID)
	if _, err := storage.Conn(ctx, t.store.db).NewInsert().Model(sh).Exec(ctx); err != nil {
		if storage.IsUniqueViolation(err) {
			return Shared{}, ErrShareExists
		}
		return Shared{}, err
	}
	return Shared{ID: sh.ID, Token: sh.Token, ShortCode: sh.ShortCode, URL: "/s/" + sh.ShortCode,
		GPXURL: "/s/" + sh.ShortCode + "/trip.gpx", Active: true, CreatedAt: sh.CreatedAt, Version: tr.Version}, nil
}

// activeShare loads the trip's active share: the read step of unshare.
func (t *Trips) activeShare(ctx context.Context, c *registry.Call) (registry.Record, error) {
	sh := new(Share)
	err := storage.Conn(ctx, t.store.db).NewSelect().Model(sh).
		Where("trip_id = ? AND deleted_at IS NULL", c.Var("id")).Scan(ctx)
	if storage.NoRows(err) {
		return nil, registry.Fail(registry.KindNotFound, "this trip is not shared")
	}
	return sh, err
}

// RecordVersion implements registry.Record; a share has no version of its own.
func (s *Share) RecordVersion() int64 { return 0 }

func (t *Trips) unshareImpact(_ context.Context, c *registry.Call) (registry.Impact, error) {
	return registry.Impact{Summary: "revokes the trip's public address; it cannot be restored (sharing again makes a new one)",
		Loses: []string{"the public address and its GPX and FIT files, for everyone who has the link"}}, nil
}

func (t *Trips) unshare(ctx context.Context, c *registry.Call, _ *NoInput) (Unshared, error) {
	res, err := storage.Conn(ctx, t.store.db).NewUpdate().Model((*Share)(nil)).Set("deleted_at = ?", c.Now.UTC()).
		Where("trip_id = ? AND deleted_at IS NULL", c.Var("id")).Exec(ctx)
	if err != nil {
		return Unshared{}, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return Unshared{}, registry.Fail(registry.KindNotFound, "this trip is not shared")
	}
	tr, err := t.store.Get(ctx, c.Var("id"))
	if err != nil {
		return Unshared{}, err
	}
	return Unshared{Revoked: true, Version: tr.Version}, nil
}

// sharedTrip resolves an active share code to its trip id; it is the owner
// rule of the public reads (anyone holding the code is allowed).
func (t *Trips) sharedTrip(ctx context.Context, code string) (string, bool, error) {
	sh := new(Share)
	err := storage.Conn(ctx, t.store.db).NewSelect().Model(sh).
		Where("short_code = ? AND deleted_at IS NULL", code).Scan(ctx)
	if storage.NoRows(err) {
		return "", false, nil
	}
	return sh.TripID, err == nil, err
}

func (t *Trips) shareActive(ctx context.Context, _ string, code string) (bool, error) {
	_, ok, err := t.sharedTrip(ctx, code)
	return ok, err
}

// ErrNoShare is the one answer for a code that is unknown or revoked.
var ErrNoShare = registry.Fail(registry.KindNotFound, "no trip is shared at this address")

func (t *Trips) publicDetail(ctx context.Context, c *registry.Call, _ *NoInput) (Detail, error) {
	id, ok, err := t.sharedTrip(ctx, c.Var("code"))
	if err != nil {
		return Detail{}, err
	}
	if !ok { // revoked since the owner rule looked
		return Detail{}, ErrNoShare
	}
	return t.Detail(ctx, id, c.Now)
}

// File is a trip or day exported as GPX or FIT.
type File struct {
	name, contentType string
	body              []byte
}

// ContentType implements registry.Download.
func (f File) ContentType() string { return f.contentType }

// FileName implements registry.Download.
func (f File) FileName() string { return f.name }

// WriteFile implements registry.Download.
func (f File) WriteFile(w io.Writer) error { _, err := w.Write(f.body); return err }

// tripFile renders the whole trip as one continuous track; a trip without
// days has no file (404), while its JSON read answers.
func (t *Trips) tripFile(ctx context.Context, id, format string) (File, error) {
	tr, err := t.store.Get(ctx, id)
	if err != nil {
		return File{}, err
	}
	stages, err := t.store.Stages(ctx, id)
	if err != nil {
		return File{}, err
	}
	var points []geo.Point
	var wpts []export.Waypoint
	for _, s := range stages {
		if len(points) > 0 && len(s.Geometry) > 0 {
			points = append(points, s.Geometry[1:]...)
		} else {
			points = append(points, s.Geometry...)
		}
		if s.Selected != nil {
			wpts = append(wpts, export.Waypoint{Name: s.Selected.Name, Lat: s.Selected.Lat, Lon: s.Selected.Lon, Category: s.Selected.Type})
		}
	}
	if len(points) < 2 {
		return File{}, registry.Fail(registry.KindNotFound, "this trip has no days to export yet")
	}
	name := tr.ID
	if tr.Title != nil {
		name = *tr.Title
	}
	track := export.Track{Name: name, Link: tr.SourceURL, Points: points, Waypoints: wpts}
	var buf bytes.Buffer
	if format == "fit" {
		if err := export.WriteFIT(&buf, track); err != nil {
			return File{}, err
		}
		return File{name: "trip.fit", contentType: export.ContentTypeFIT, body: buf.Bytes()}, nil
	}
	if err := export.WriteGPX(&buf, track); err != nil {
		return File{}, err
	}
	return File{name: "trip.gpx", contentType: export.ContentTypeGPX, body: buf.Bytes()}, nil
}

func (t *Trips) declareShares(reg *registry.Registry) {
	owner := registry.ByURIVariable("id", t.store.Owns)
	public := registry.ByURIVariable("code", t.shareActive)

	registry.Add(reg, registry.Op[NoInput, Shared]{
		ID: "shares.create", Summary: "Share a trip: a public address and its GPX link",
		HTTP: registry.Post("/trips/{id}/share", http.StatusCreated),
		Tool: registry.Tool("share_trip", "Make a public address for a trip, readable without a token, and the link to its GPX file. Hand over the link rather than the file. Refused while the trip is shared already."),

		Scope: scopes.TripsWrite, Owner: owner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{},
		Handle: t.share,
	})

	registry.Add(reg, registry.Op[NoInput, Unshared]{
		ID: "shares.revoke", Summary: "Revoke a trip's public address",
		HTTP: registry.Delete("/trips/{id}/share"),
		Tool: registry.Tool("unshare_trip", "Revoke a trip's public address: everyone holding the link loses it at once. Asks for confirmation first."),

		Scope: scopes.TripsWrite, Owner: owner, RateLimit: registry.NoRateLimit, Load: t.activeShare,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.ConfirmWith(t.unshareImpact), Idempotency: registry.NotACreation,
		Hints:  registry.Hints{Destructive: true},
		Handle: t.unshare,
	})

	registry.Add(reg, registry.Op[NoInput, Detail]{
		ID: "shares.read", Summary: "Read a shared trip, without a token",
		HTTP: registry.Get("/s/{code}"), Tool: registry.NotATool(registry.MotiveCoveredByAnotherTool),

		Scope: registry.Public, Owner: public, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: t.publicDetail,
	})

	for _, format := range []string{"gpx", "fit"} {
		registry.Add(reg, registry.Op[NoInput, File]{
			ID: "shares.file_" + format, Summary: "A shared trip as a " + format + " file, without a token",
			HTTP: registry.Get("/s/{code}/trip." + format), Tool: registry.NotATool(registry.MotiveBinaryPayload),

			Scope: registry.Public, Owner: public, RateLimit: registry.NoRateLimit,
			Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
			Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
			Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (File, error) {
				id, ok, err := t.sharedTrip(ctx, c.Var("code"))
				if err != nil {
					return File{}, err
				}
				if !ok {
					return File{}, ErrNoShare
				}
				return t.tripFile(ctx, id, format)
			},
		})
		registry.Add(reg, registry.Op[NoInput, File]{
			ID: "trips.file_" + format, Summary: "A trip as a " + format + " file",
			HTTP: registry.Get("/trips/{id}/trip." + format), Tool: registry.NotATool(registry.MotiveBinaryPayload),

			Scope: scopes.TripsRead, Owner: owner, RateLimit: registry.NoRateLimit,
			Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
			Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
			Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (File, error) {
				return t.tripFile(ctx, c.Var("id"), format)
			},
		})
	}
}
