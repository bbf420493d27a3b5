package conformance_test

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"go.uber.org/fx"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// This file is a small product that is not the trip planner: one module
// keeping each user's bookmarks, declared against the framework's public
// packages only, with an in-memory token store. Its flaws switch on the
// mistakes the kit must catch.

// flaws are mistakes a module can make; the zero value is the module
// written right.
type flaws struct {
	ownerIgnoresUser   bool // delete's owner check reads WHERE id = ?, whoever asks
	impactDeletes      bool // delete acts while describing its impact, before any token
	noConfirm          bool // delete is declared without confirmation
	loadForgetsArchive bool // update's read step leaves out the archived column, so the lock never holds
	noPrecondition     bool // update is declared without a precondition
	quotesWhole        bool // create's refusal of an address quotes all of it
	harmlessAsks       bool // update's impact lists a loss for a title change too
}

const (
	scopeRead  registry.Scope = "bookmarks:read"
	scopeWrite registry.Scope = "bookmarks:write"
)

//go:embed testdata/migrations/*.sql
var migrationFiles embed.FS

var bookmarkMigrations = migrations.Dir("bookmarks", migrationFiles, "testdata/migrations")

// product is the bookmarks service with the given flaws.
func product(f flaws) app.Product {
	return app.Product{
		Name:    "bookmarks",
		Title:   "Bookmarks",
		Version: "0.0.1",
		Modules: []app.Module{
			{
				Name: "bookmarks",
				Options: fx.Provide(
					func(db *bun.DB) *store { return &store{db: db} },
					fx.Annotate(func(s *store) registry.Declarer { return module{s: s, f: f}.declare },
						fx.ResultTags(`group:"declarations"`))),
				Migrations: []migrations.Source{bookmarkMigrations},
			},
			peopleModule,
		},
	}
}

// peopleModule is the token store of the kit's test products.
var peopleModule = app.Module{
	Name: "tokens",
	Options: fx.Provide(func() *people { return &people{ids: map[string]string{}, tokens: map[string]registry.Principal{}} },
		func(p *people) guards.Authenticator { return p },
		func(p *people) app.TokenIssuer { return p }),
}

// people mints and resolves tokens in memory.
type people struct {
	mu     sync.Mutex
	ids    map[string]string // email -> user id
	tokens map[string]registry.Principal
}

func (p *people) IssueToken(_ context.Context, email string, scopes []registry.Scope) (string, error) {
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	tok := "bm_" + hex.EncodeToString(raw)
	p.mu.Lock()
	defer p.mu.Unlock()
	id, ok := p.ids[email]
	if !ok {
		id = uuid.NewString()
		p.ids[email] = id
	}
	p.tokens[tok] = registry.Principal{UserID: id, Email: email, Scopes: append([]registry.Scope(nil), scopes...)}
	return tok, nil
}

func (p *people) Authenticate(_ context.Context, credential string) (*registry.Principal, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr, ok := p.tokens[credential]
	if !ok {
		return nil, nil
	}
	return &pr, nil
}

// bookmark is the stored record.
type bookmark struct {
	bun.BaseModel `bun:"table:bookmarks"`

	ID       string `bun:"id,pk"`
	UserID   string `bun:"user_id"`
	URL      string `bun:"url"`
	Title    string `bun:"title"`
	Archived bool   `bun:"archived"`
	Version  int64  `bun:"version"`
}

func (b *bookmark) RecordVersion() int64 { return b.Version }

// store writes through storage.Conn, so a creation commits with its
// idempotency key.
type store struct{ db *bun.DB }

var errNotFound = registry.Fail(registry.KindNotFound, registry.NotFoundDetail)

func (s *store) owns(ctx context.Context, userID, id string) (bool, error) {
	return storage.Conn(ctx, s.db).NewSelect().Model((*bookmark)(nil)).
		Where("id = ? AND user_id = ?", id, userID).Exists(ctx)
}

// ownsAny is the broken check: it asks whether the bookmark exists, not
// whose it is.
func (s *store) ownsAny(ctx context.Context, _, id string) (bool, error) {
	return storage.Conn(ctx, s.db).NewSelect().Model((*bookmark)(nil)).Where("id = ?", id).Exists(ctx)
}

func (s *store) get(ctx context.Context, id string, columns ...string) (*bookmark, error) {
	b := new(bookmark)
	q := storage.Conn(ctx, s.db).NewSelect().Model(b).Where("id = ?", id)
	if len(columns) > 0 {
		q = q.Column(columns...)
	}
	if err := q.Scan(ctx); err != nil {
		if storage.NoRows(err) {
			return nil, errNotFound
		}
		return nil, err
	}
	return b, nil
}

func (s *store) list(ctx context.Context, userID string) ([]bookmark, error) {
	var out []bookmark
	err := storage.Conn(ctx, s.db).NewSelect().Model(&out).Where("user_id = ?", userID).Order("id").Scan(ctx)
	return out, err
}

func (s *store) insert(ctx context.Context, b *bookmark) error {
	_, err := storage.Conn(ctx, s.db).NewInsert().Model(b).Exec(ctx)
	return err
}

// update writes b when the stored version is still expected.
func (s *store) update(ctx context.Context, b *bookmark, expected int64) error {
	b.Version = expected + 1
	res, err := storage.Conn(ctx, s.db).NewUpdate().Model(b).Column("url", "title", "archived", "version").
		WherePK().Where("version = ?", expected).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return registry.Fail(registry.KindPreconditionFailed, "the bookmark changed meanwhile; read it again")
	}
	return nil
}

func (s *store) delete(ctx context.Context, id string) error {
	_, err := storage.Conn(ctx, s.db).NewDelete().Model((*bookmark)(nil)).Where("id = ?", id).Exec(ctx)
	return err
}

// The published shapes.
type (
	// NoInput is the input of an operation without arguments.
	NoInput struct{}

	// CreateInput is a new bookmark.
	CreateInput struct {
		URL   string `json:"url" maxLength:"2000" doc:"The https address to keep."`
		Title string `json:"title" maxLength:"200" doc:"What to call it."`
	}

	// UpdateInput changes a bookmark.
	UpdateInput struct {
		URL   *string `json:"url,omitempty" maxLength:"2000" doc:"A new https address."`
		Title *string `json:"title,omitempty" maxLength:"200" doc:"A new title."`
	}

	// Bookmark is a bookmark as published.
	Bookmark struct {
		ID       string `json:"id" doc:"The bookmark's id."`
		URL      string `json:"url" doc:"Its address."`
		Title    string `json:"title" doc:"Its title."`
		Archived bool   `json:"archived" doc:"An archived bookmark can be read or deleted, never changed."`
		Version  int64  `json:"version" doc:"Send it back to change the bookmark."`
	}

	// List is the caller's bookmarks.
	List struct {
		Bookmarks []Bookmark `json:"bookmarks" doc:"The caller's bookmarks."`
	}

	// Deleted says a bookmark is gone.
	Deleted struct {
		ID      string `json:"id" doc:"The deleted bookmark's id."`
		Deleted bool   `json:"deleted" doc:"Always true."`
	}
)

// CreatedID implements registry.Created.
func (b Bookmark) CreatedID() string { return b.ID }

// ResourceVersion implements registry.Versioned.
func (b Bookmark) ResourceVersion() int64 { return b.Version }

// ResourceLocation implements registry.Located.
func (b Bookmark) ResourceLocation() string { return "/bookmarks/" + b.ID }

func published(b *bookmark) Bookmark {
	return Bookmark{ID: b.ID, URL: b.URL, Title: b.Title, Archived: b.Archived, Version: b.Version}
}

// module is the bookmarks module's declarations.
type module struct {
	s *store
	f flaws
}

const lockReason = "an archived bookmark can be read or deleted, never changed"

func (m module) declare(reg *registry.Registry) {
	reg.DeclareScope(scopeRead, registry.ReadScope, "Read your bookmarks.")
	reg.DeclareScope(scopeWrite, registry.WriteScope, "Keep, change, archive and delete your bookmarks.")
	owner := registry.ByURIVariable("id", m.s.owns)

	registry.Add(reg, registry.Op[NoInput, List]{
		ID: "bookmarks.list", Summary: "List your bookmarks",
		HTTP: registry.Get("/bookmarks"), Tool: registry.Tool("list_bookmarks", "List the caller's bookmarks."),
		Scope: scopeRead, Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (List, error) {
			bs, err := m.s.list(ctx, c.UserID())
			out := List{Bookmarks: []Bookmark{}}
			for i := range bs {
				out.Bookmarks = append(out.Bookmarks, published(&bs[i]))
			}
			return out, err
		},
	})

	registry.Add(reg, registry.Op[CreateInput, Bookmark]{
		ID: "bookmarks.create", Summary: "Keep a bookmark",
		HTTP: registry.Post("/bookmarks", http.StatusCreated), Tool: registry.Tool("save_bookmark", "Keep an https address under a title."),
		Scope: scopeWrite, Owner: registry.CallerOwned, RateLimit: registry.PerUser(10, time.Minute),
		Merge: func(_ context.Context, _ *registry.Call, in *CreateInput) (registry.Record, error) {
			return &bookmark{URL: in.URL, Title: in.Title, Version: 1}, nil
		},
		Validate: registry.ValidateWith(func(r registry.Record) []registry.Violation {
			vs := violations(r)
			if b := r.(*bookmark); m.f.quotesWhole && !strings.HasPrefix(b.URL, "https://") {
				vs[0].Reason = fmt.Sprintf("%q is not an https address", b.URL)
			}
			return vs
		}), Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.CreationReplayedBy(m.replay), Record: (*bookmark)(nil),
		Handle: func(ctx context.Context, c *registry.Call, _ *CreateInput) (Bookmark, error) {
			b := c.Merged.(*bookmark)
			b.ID, b.UserID = uuid.NewString(), c.UserID()
			return published(b), m.s.insert(ctx, b)
		},
	})

	registry.Add(reg, registry.Op[NoInput, Bookmark]{
		ID: "bookmarks.get", Summary: "Read a bookmark",
		HTTP: registry.Get("/bookmarks/{id}"), Tool: registry.Tool("get_bookmark", "Read one bookmark with the version a change needs."),
		Scope: scopeRead, Owner: owner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (Bookmark, error) {
			b, err := m.s.get(ctx, c.Var("id"))
			if err != nil {
				return Bookmark{}, err
			}
			return published(b), nil
		},
	})

	load := m.load
	if m.f.loadForgetsArchive {
		load = func(ctx context.Context, c *registry.Call) (registry.Record, error) {
			return m.s.get(ctx, c.Var("id"), "id", "user_id", "url", "title", "version")
		}
	}
	precondition := registry.RequireVersion
	if m.f.noPrecondition {
		precondition = registry.NoPrecondition
	}
	registry.Add(reg, registry.Op[UpdateInput, Bookmark]{
		ID: "bookmarks.update", Summary: "Change a bookmark",
		HTTP: registry.Patch("/bookmarks/{id}", http.StatusOK), Tool: registry.Tool("update_bookmark", "Change a bookmark's address or title. Needs its version."),
		Scope: scopeWrite, Owner: owner, RateLimit: registry.NoRateLimit, Load: load,
		Merge: func(_ context.Context, c *registry.Call, in *UpdateInput) (registry.Record, error) {
			b := *c.Previous.(*bookmark)
			if in.URL != nil {
				b.URL = *in.URL
			}
			if in.Title != nil {
				b.Title = *in.Title
			}
			return &b, nil
		},
		Validate: registry.ValidateWith(violations), Lock: registry.LockWhen(lockReason, archived),
		Precondition: precondition, Confirm: registry.ConfirmWhenLoses(m.updateImpact), Idempotency: registry.NotACreation,
		Hints: registry.Hints{Destructive: true}, Record: (*bookmark)(nil), // a new address loses the old one
		Handle: save[UpdateInput](m.s),
	})

	registry.Add(reg, registry.Op[NoInput, Bookmark]{
		ID: "bookmarks.archive", Summary: "Archive a bookmark",
		HTTP: registry.Post("/bookmarks/{id}/archive", http.StatusOK), Tool: registry.NotATool(registry.MotiveUIVocabulary),
		Scope: scopeWrite, Owner: owner, RateLimit: registry.NoRateLimit, Load: m.load,
		Merge: func(_ context.Context, c *registry.Call, _ *NoInput) (registry.Record, error) {
			b := *c.Previous.(*bookmark)
			b.Archived = true
			return &b, nil
		},
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.RequireVersion,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{},
		Handle: save[NoInput](m.s),
	})

	confirm := registry.ConfirmWith(deleteImpact)
	switch {
	case m.f.noConfirm:
		confirm = registry.NoConfirm
	case m.f.impactDeletes:
		confirm = registry.ConfirmWith(func(ctx context.Context, c *registry.Call) (registry.Impact, error) {
			if err := m.s.delete(ctx, c.Var("id")); err != nil {
				return registry.Impact{}, err
			}
			return deleteImpact(ctx, c)
		})
	}
	deleteOwner := owner
	if m.f.ownerIgnoresUser {
		deleteOwner = registry.ByURIVariable("id", m.s.ownsAny)
	}
	registry.Add(reg, registry.Op[NoInput, Deleted]{
		ID: "bookmarks.delete", Summary: "Delete a bookmark",
		HTTP: registry.Delete("/bookmarks/{id}"), Tool: registry.Tool("delete_bookmark", "Delete a bookmark. Asks for confirmation first."),
		Scope: scopeWrite, Owner: deleteOwner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: confirm, Idempotency: registry.NotACreation, Hints: registry.Hints{Destructive: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (Deleted, error) {
			return Deleted{ID: c.Var("id"), Deleted: true}, m.s.delete(ctx, c.Var("id"))
		},
	})
}

func (m module) load(ctx context.Context, c *registry.Call) (registry.Record, error) {
	return m.s.get(ctx, c.Var("id"))
}

func (m module) replay(ctx context.Context, _ *registry.Call, id string) (any, error) {
	b, err := m.s.get(ctx, id)
	if err != nil {
		return nil, err
	}
	return published(b), nil
}

// save writes the merged record of an edit, whatever the operation's input.
func save[I any](s *store) func(ctx context.Context, c *registry.Call, _ *I) (Bookmark, error) {
	return func(ctx context.Context, c *registry.Call, _ *I) (Bookmark, error) {
		b := c.Merged.(*bookmark)
		if err := s.update(ctx, b, c.Previous.RecordVersion()); err != nil {
			return Bookmark{}, err
		}
		return published(b), nil
	}
}

// updateImpact loses the old address when the address changes; a new
// title loses nothing, so it is not asked about.
func (m module) updateImpact(_ context.Context, c *registry.Call) (registry.Impact, error) {
	prev, merged := c.Previous.(*bookmark), c.Merged.(*bookmark)
	im := registry.Impact{Summary: "changes this bookmark", Loses: []string{}}
	if merged.URL != prev.URL {
		im.Loses = append(im.Loses, "the address it pointed at")
	}
	if m.f.harmlessAsks {
		im.Loses = append(im.Loses, "nothing, but the impact says something")
	}
	return im, nil
}

func deleteImpact(context.Context, *registry.Call) (registry.Impact, error) {
	return registry.Impact{Summary: "deletes this bookmark; it cannot be undone", Loses: []string{"its address and title"}}, nil
}

// violations judges a merged bookmark.
func violations(r registry.Record) []registry.Violation {
	b := r.(*bookmark)
	var vs []registry.Violation
	if !strings.HasPrefix(b.URL, "https://") {
		vs = append(vs, registry.Violation{Field: "url", Reason: "must be an https address"})
	}
	switch {
	case strings.TrimSpace(b.Title) == "":
		vs = append(vs, registry.Violation{Field: "title", Reason: "must not be blank"})
	case b.Title == b.URL:
		vs = append(vs, registry.Violation{Field: "title", Reason: "must say more than the address itself"})
	}
	return vs
}

func archived(previous registry.Record, _ time.Time) bool { return previous.(*bookmark).Archived }
