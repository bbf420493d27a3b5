package notes_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/examples/notes"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/registry/registrytest"
	"cairn.dev/cairn/storage/storagetest"
)

// TestRegistryCovered walks the product's declarations, built as the
// server builds them but without starting anything.
func TestRegistryCovered(t *testing.T) {
	t.Parallel()
	product := notes.Product()
	cfg, err := config.Load("", nil, product.Keys()...)
	require.NoError(t, err)
	reg, err := app.Registry(product, cfg)
	require.NoError(t, err)
	registrytest.RequireCovered(t, reg)
}

// TestConformance drives, for every operation and every guard it declares,
// a call that guard must refuse, on both faces, from the fixtures below
// and the door's (sign-in, the account, OAuth).
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name string
		opts []apptest.Option
	}{{"sqlite", nil}, {"postgres", []apptest.Option{apptest.Postgres}}} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			a := apptest.New(t, notes.Product(), engine.opts...)
			fx := doortest.Fixtures(a.Server.Registry)
			maps.Copy(fx, fixtures)
			conformance.Exercise(t, a, fx)
		})
	}
}

var fixtures = conformance.Fixtures{
	"notes.get": {
		Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			return apptest.Request{Vars: map[string]string{"id": newNote(t, a, u)}}
		},
	},
	"notes.create": {
		Valid: func(testing.TB, *apptest.App, conformance.User) apptest.Request {
			return apptest.Request{Args: map[string]any{"title": unique("Note"), "body": "some text"}}
		},
		Conflicting: func(r apptest.Request) apptest.Request {
			r.Args["body"] = "another text"
			return r
		},
		Invalid: func(_ testing.TB, _ *apptest.App, _ conformance.User, valid apptest.Request) apptest.Request {
			valid.Args = map[string]any{"title": "   ", "body": valid.Args["body"]} // well formed, but blank
			return valid
		},
		Written: func(t testing.TB, a *apptest.App, _ conformance.User, r apptest.Request) bool {
			n, err := a.DB.NewSelect().Table("notes").Where("title = ?", r.Args["title"]).Count(context.Background())
			require.NoError(t, err)
			return n > 0
		},
	},
	"notes.update": {
		// Archiving loses every further change, so it asks; a new title
		// does not.
		Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			return apptest.Request{Vars: map[string]string{"id": newNote(t, a, u)},
				Args: map[string]any{"title": unique("Archived"), "archived": true}, Version: version(1)}
		},
		Harmless: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			return apptest.Request{Vars: map[string]string{"id": newNote(t, a, u)},
				Args: map[string]any{"title": unique("Renamed")}, Version: version(1)}
		},
		Invalid: func(_ testing.TB, _ *apptest.App, _ conformance.User, valid apptest.Request) apptest.Request {
			valid.Args = map[string]any{"title": ""}
			return valid
		},
		Locked: func(t testing.TB, a *apptest.App, u conformance.User, valid apptest.Request) apptest.Request {
			id := newNote(t, a, u)
			archive(t, a, u.Token, id, 1)
			valid.Vars = map[string]string{"id": id}
			valid.Version = version(2) // the current version: only the lock may refuse
			return valid
		},
		Written: func(t testing.TB, a *apptest.App, _ conformance.User, r apptest.Request) bool {
			n, err := notes.NewStore(a.DB).Get(context.Background(), r.Vars["id"])
			require.NoError(t, err)
			return n.Title == r.Args["title"]
		},
	},
	"notes.delete": {
		Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			return apptest.Request{Vars: map[string]string{"id": newNote(t, a, u)}}
		},
		Written: func(t testing.TB, a *apptest.App, _ conformance.User, r apptest.Request) bool {
			n, err := a.DB.NewSelect().Table("notes").Where("id = ?", r.Vars["id"]).Count(context.Background())
			require.NoError(t, err)
			return n == 0
		},
	},
}

// newNote creates a note as u, through the HTTP face, and answers its id.
func newNote(t testing.TB, a *apptest.App, u conformance.User) string {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/notes", u.Token, map[string]any{"title": unique("Note")},
		operations.HeaderIdempotencyKey, key())
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	id, _ := res.JSON(t)["id"].(string)
	require.NotEmpty(t, id)
	return id
}

// archive archives note id at version v as token's user, confirming it.
func archive(t testing.TB, a *apptest.App, token, id string, v int) {
	t.Helper()
	ifMatch := fmt.Sprintf("%q", strconv.Itoa(v))
	asked := a.Do(t, http.MethodPatch, "/notes/"+id, token, map[string]any{"archived": true}, "If-Match", ifMatch)
	require.Equal(t, http.StatusConflict, asked.Status, "archiving asks first: %s", asked.Body)
	tok, _ := asked.JSON(t)["confirmationToken"].(string)
	res := a.Do(t, http.MethodPatch, "/notes/"+id, token, map[string]any{"archived": true}, "If-Match", ifMatch,
		operations.HeaderConfirmationToken, tok)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
}

// unique is a title no other fixture uses, so a probe finds its own note.
func unique(prefix string) string { return prefix + " " + uuid.NewString()[:8] }

func op(t testing.TB, a *apptest.App, id string) *registry.Operation {
	t.Helper()
	o, ok := a.Server.Registry.Lookup(id)
	require.True(t, ok, "operation %s is not declared", id)
	return o
}

func key() string { return "key-" + uuid.NewString() }

func version(v int64) *int64 { return &v }

// TestBothFaces drives the four operations through both faces on each
// engine: what one face writes, the other reads the same.
func TestBothFaces(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name string
		opts []apptest.Option
	}{
		{"sqlite", nil},
		{"postgres", []apptest.Option{apptest.Postgres}},
	} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			a := apptest.New(t, notes.Product(), engine.opts...)
			tok := a.Token(t, "ada@example.com")
			session := a.MCP(t, tok)

			created := a.ViaHTTP(t, apptest.Request{Op: op(t, a, "notes.create"), Token: tok, Key: key(),
				Args: map[string]any{"title": "Groceries", "body": "eggs"}})
			require.Equal(t, http.StatusCreated, created.Status, string(created.Raw))
			id, _ := created.Body["id"].(string)
			require.NotEmpty(t, id)
			require.Equal(t, "/notes/"+id, created.Header.Get("Location"))
			require.Equal(t, `"1"`, created.Header.Get("ETag"))

			get := apptest.Request{Op: op(t, a, "notes.get"), Token: tok, Vars: map[string]string{"id": id}}
			h, m := a.ViaHTTP(t, get), a.ViaMCP(t, session, get)
			require.Equal(t, http.StatusOK, h.Status, string(h.Raw))
			require.Equal(t, http.StatusOK, m.Status, string(m.Raw))
			require.Equal(t, created.Body, h.Body, "the creation answers what a read answers")
			require.Equal(t, h.Body, m.Body, "one note, one answer on both faces")

			updated := a.ViaMCP(t, session, apptest.Request{Op: op(t, a, "notes.update"), Token: tok,
				Vars: map[string]string{"id": id}, Args: map[string]any{"body": "eggs, milk"}, Version: version(1)})
			require.Equal(t, http.StatusOK, updated.Status, string(updated.Raw))
			h = a.ViaHTTP(t, get)
			require.Equal(t, "eggs, milk", h.Body["body"])
			require.Equal(t, "Groceries", h.Body["title"], "a merge patch keeps what it does not name")
			require.EqualValues(t, 2, h.Body["version"])
			require.Regexp(t, `^"2-[0-9a-z]+"$`, h.Header.Get("ETag"), "a read's tag: its version, then its answer's hash")

			archiving := apptest.Request{Op: op(t, a, "notes.update"), Token: tok,
				Vars: map[string]string{"id": id}, Args: map[string]any{"archived": true}, Version: version(2)}
			asked := a.ViaMCP(t, session, archiving)
			require.Equal(t, operations.ConfirmationType, asked.Type, "archiving cannot be undone, so it asks: %s", asked.Raw)
			archiving.Confirm, _ = asked.Body["confirmationToken"].(string)
			archived := a.ViaHTTP(t, archiving)
			require.Equal(t, http.StatusOK, archived.Status, string(archived.Raw))
			change := apptest.Request{Op: op(t, a, "notes.update"), Token: tok,
				Vars: map[string]string{"id": id}, Args: map[string]any{"title": "Shopping"}, Version: version(3)}
			h, m = a.ViaHTTP(t, change), a.ViaMCP(t, session, change)
			require.Equal(t, http.StatusLocked, h.Status, string(h.Raw))
			require.Equal(t, h.Status, m.Status, string(m.Raw))
			require.Equal(t, notes.LockReason, h.Body["detail"])
			sameProblem(t, h, m)

			del := apptest.Request{Op: op(t, a, "notes.delete"), Token: tok, Vars: map[string]string{"id": id}}
			asked = a.ViaMCP(t, session, del)
			require.Equal(t, operations.ConfirmationType, asked.Type, string(asked.Raw))
			require.Equal(t, http.StatusOK, a.ViaHTTP(t, get).Status, "asking deletes nothing")
			del.Confirm, _ = asked.Body["confirmationToken"].(string)
			require.NotEmpty(t, del.Confirm)
			done := a.ViaMCP(t, session, del)
			require.Equal(t, http.StatusOK, done.Status, string(done.Raw))
			require.Equal(t, true, done.Body["deleted"])

			h, m = a.ViaHTTP(t, get), a.ViaMCP(t, session, get)
			require.Equal(t, http.StatusNotFound, h.Status, string(h.Raw))
			require.Equal(t, h.Status, m.Status, string(m.Raw))
			sameProblem(t, h, m)
		})
	}
}

// TestCreationIsReplayed sends one creation twice with one key: the second
// answer is the first note, rebuilt from the database, and nothing else is
// created.
func TestCreationIsReplayed(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, notes.Product())
	tok := a.Token(t, "ada@example.com")
	r := apptest.Request{Op: op(t, a, "notes.create"), Token: tok, Key: key(),
		Args: map[string]any{"title": "Once", "body": "only once"}}
	first, again := a.ViaHTTP(t, r), a.ViaHTTP(t, r)
	require.Equal(t, http.StatusCreated, first.Status, string(first.Raw))
	require.Equal(t, first.Status, again.Status, string(again.Raw))
	require.Equal(t, string(first.Raw), string(again.Raw), "a replay answers the same bytes")
	n, err := a.DB.NewSelect().Table("notes").Where("title = ?", "Once").Count(context.Background())
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}

// TestStaleWriteLoses runs the store's conditional write directly: of two
// writers holding one version, the second is refused, on either engine.
func TestStaleWriteLoses(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]func(t *testing.T) *notes.Store{
		"sqlite":   func(t *testing.T) *notes.Store { return notes.NewStore(storagetest.SQLite(t, notes.Migrations)) },
		"postgres": func(t *testing.T) *notes.Store { return notes.NewStore(storagetest.Postgres(t, notes.Migrations)) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s := open(t)
			n := &notes.Note{ID: uuid.NewString(), UserID: "u1", Title: "t", Version: 1}
			require.NoError(t, s.Insert(ctx, n))
			first, second := *n, *n
			first.Title, second.Title = "first", "second"
			require.NoError(t, s.Update(ctx, &first, 1, n.CreatedAt))
			require.ErrorIs(t, s.Update(ctx, &second, 1, n.CreatedAt), notes.ErrStale)
			got, err := s.Get(ctx, n.ID)
			require.NoError(t, err)
			require.Equal(t, "first", got.Title)
			require.EqualValues(t, 2, got.Version)

			owns, err := s.Owns(ctx, "u1", n.ID)
			require.NoError(t, err)
			require.True(t, owns)
			for _, tc := range []struct{ user, id string }{{"u2", n.ID}, {"u1", uuid.NewString()}, {"u1", "not-a-uuid"}} {
				owns, err := s.Owns(ctx, tc.user, tc.id)
				require.NoError(t, err)
				require.False(t, owns, "%s does not own %s", tc.user, tc.id)
			}
		})
	}
}

// sameProblem checks that both faces refused with one problem: the same
// fields, each request with its own id.
func sameProblem(t *testing.T, h, m apptest.Outcome) {
	t.Helper()
	require.NotEmpty(t, h.Body["requestId"])
	require.NotEmpty(t, m.Body["requestId"])
	delete(h.Body, "requestId")
	delete(m.Body, "requestId")
	require.Equal(t, h.Body, m.Body, "one refusal on both faces")
}
