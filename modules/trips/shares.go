package trips

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

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

// Shared is a trip's active share as its owner reads it: the public
// address and its files, absolute.
type Shared struct {
	ID        string    `json:"id" doc:"The share's id."`
	Token     string    `json:"token" doc:"The share's secret (64 hex); no read needs it."`
	ShortCode string    `json:"shortCode" doc:"The public code."`
	URL       string    `json:"url" doc:"The public address of the trip; anyone with it can read the trip (a browser gets a page)."`
	GPXURL    string    `json:"gpxUrl" doc:"The trip as a GPX file, needing no token: hand this link over rather than the file."`
	FITURL    string    `json:"fitUrl" doc:"The trip as a FIT course, needing no token."`
	Active    bool      `json:"active" doc:"True until the share is revoked."`
	CreatedAt time.Time `json:"createdAt" doc:"When the link was made."`
	Version   int64     `json:"version" doc:"The trip's version, unchanged by sharing: the one you hold stays good."`

	tripID string
}

// ResourceLocation implements registry.Located: the owner reads the share
// back at its trip's share address.
func (s Shared) ResourceLocation() string { return "/trips/" + s.tripID + "/share" }

// SharePath is the public address of a share code, relative to the server.
func SharePath(code string) string { return "/s/" + code }

// shared is what the owner is told of share sh of a trip at version.
func (t *Trips) shared(sh *Share, version int64) Shared {
	base := SharePath(sh.ShortCode)
	return Shared{ID: sh.ID, Token: sh.Token, ShortCode: sh.ShortCode, URL: t.absolute(base),
		GPXURL: t.absolute(base + ".gpx"), FITURL: t.absolute(base + ".fit"), Active: sh.DeletedAt == nil,
		CreatedAt: sh.CreatedAt, Version: version, tripID: sh.TripID}
}

// Unshared is the answer of unshare_trip (HTTP answers 204 without it).
type Unshared struct {
	Revoked bool  `json:"revoked" doc:"Always true: the public address and its files answer 404 from now on."`
	Version int64 `json:"version" doc:"The trip's version, unchanged by revoking: the one you hold stays good."`
}

// ErrShareExists refuses a second active share of a trip; the refusal a
// caller meets (shareExists) gives the active address.
var ErrShareExists = &registry.Error{Kind: registry.KindConflict, Code: "share_exists",
	Detail: "This trip is shared already: its address stays good, and the refusal gives it."}

// shareExists refuses a second share of a trip with the address of its
// active one: its recipients hold that link, so no one should revoke it
// just to learn it.
func (t *Trips) shareExists(c *registry.Call, sh *Share) error {
	return &registry.Error{Kind: registry.KindConflict, Code: ErrShareExists.Code,
		Detail: "this trip is shared already at " + t.shared(sh, 0).URL + "; nothing changed and that address stays good; " +
			c.ByFace("GET /trips/{id}/share answers it with its file links",
				"hand that address out; revoking it (unshare_trip) only makes sense to stop it working")}
}

func newShare(tripID string) *Share {
	token := make([]byte, 32)
	code := make([]byte, 6) // 48 random bits
	_, _ = rand.Read(token)
	_, _ = rand.Read(code)
	return &Share{ID: uuid.Must(uuid.NewV7()).String(), TripID: tripID, Token: hex.EncodeToString(token),
		ShortCode: base64.RawURLEncoding.EncodeToString(code),
		CreatedAt: time.Now().UTC().Truncate(time.Microsecond)} // as stored: the creation and a read say the same
}

func (t *Trips) share(ctx context.Context, c *registry.Call, _ *NoInput) (Shared, error) {
	tr, err := t.store.Get(ctx, c.Var("id"))
	if err != nil {
		return Shared{}, err
	}
	// Read before the insert: a refused insert would end a PostgreSQL
	// transaction, and the refusal needs the active share.
	if active, err := t.activeShare(ctx, c); err == nil {
		return Shared{}, t.shareExists(c, active.(*Share))
	} else if registry.AsError(err).Kind != registry.KindNotFound {
		return Shared{}, err
	}
	sh := newShare(tr.ID)
	if _, err := storage.Conn(ctx, t.store.db).NewInsert().Model(sh).Exec(ctx); err != nil {
		if storage.IsUniqueViolation(err) {
			return Shared{}, ErrShareExists // shared meanwhile, by a concurrent call
		}
		return Shared{}, err
	}
	if err := t.store.touch(ctx, tr.ID); err != nil {
		return Shared{}, err
	}
	return t.shared(sh, tr.Version), nil
}

// readShare answers the trip's active share, or 404.
func (t *Trips) readShare(ctx context.Context, c *registry.Call, _ *NoInput) (Shared, error) {
	r, err := t.activeShare(ctx, c)
	if err != nil {
		return Shared{}, err
	}
	tr, err := t.store.Brief(ctx, c.Var("id"))
	if err != nil {
		return Shared{}, err
	}
	return t.shared(r.(*Share), tr.Version), nil
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
	if err := t.store.touch(ctx, c.Var("id")); err != nil {
		return Unshared{}, err
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

// sharedTripID is the trip behind the call's share code.
func (t *Trips) sharedTripID(ctx context.Context, c *registry.Call) (string, error) {
	id, ok, err := t.sharedTrip(ctx, c.Var("code"))
	if err != nil {
		return "", err
	}
	if !ok { // revoked since the owner rule looked
		return "", ErrNoShare
	}
	return id, nil
}

// CodeShape is what a share code may hold; any other character is refused
// by name before any lookup.
const CodeShape = `[A-Za-z0-9_-]+`

// declareShares adds the owner's share operations and the public reads
// behind a code.
func (t *Trips) declareShares(reg *registry.Registry) {
	owner := registry.ByURIVariable("id", t.store.Owns)
	public := registry.ByURIVariable("code", t.shareActive).Matching(CodeShape)

	registry.Add(reg, registry.Op[NoInput, Shared]{
		ID: "shares.create", Summary: "Share a trip: a public address and its file links",
		HTTP: registry.Post("/trips/{id}/share", http.StatusCreated),
		Tool: registry.Tool("share_trip", "Make a public address for a trip, readable without a token, and the link to its GPX file. Hand over the link rather than the file. Refused while the trip is shared already.").Viewed(TripView),

		Scope: scopes.TripsWrite, Owner: owner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{},
		Refusals: []*registry.Error{ErrShareExists},
		Handle:   t.share,
	})

	registry.Add(reg, registry.Op[NoInput, Shared]{
		ID: "shares.get", Summary: "Read a trip's active share, or 404",
		HTTP: registry.Get("/trips/{id}/share"), Tool: registry.NotATool(registry.MotiveCoveredByAnotherTool),

		Scope: scopes.TripsRead, Owner: owner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: t.readShare,
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

	registry.Add(reg, registry.Op[NoInput, PublicTrip]{
		ID: "shares.read", Summary: "Read a shared trip, without a token (a browser gets a page)",
		HTTP: registry.Get("/s/{code}").WithPages(refusalPage), Tool: registry.NotATool(registry.MotiveCoveredByAnotherTool),

		Scope: registry.Public, Owner: public, RateLimit: publicReads,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: t.publicTrip,
	})

	t.declareFiles(reg, registry.ByURIVariable("id", t.store.OwnsForRead), public)
}
