package conformance_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry/registrytest"
)

// saved keeps a bookmark for u over HTTP and returns its id and version.
func saved(t testing.TB, a *apptest.App, u conformance.User) (string, int64) {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/bookmarks", u.Token,
		map[string]any{"url": "https://example.com/" + uuid.NewString(), "title": "A page"},
		operations.HeaderIdempotencyKey, "key-"+uuid.NewString())
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	body := res.JSON(t)
	return body["id"].(string), int64(body["version"].(float64))
}

// one names a saved bookmark of u.
func one(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
	id, _ := saved(t, a, u)
	return apptest.Request{Vars: map[string]string{"id": id}}
}

// versioned names a saved bookmark of u with the version it was read at.
func versioned(args map[string]any) func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
	return func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		id, v := saved(t, a, u)
		return apptest.Request{Vars: map[string]string{"id": id}, Args: args, Version: &v}
	}
}

// written is the probe of every write: the bookmark is gone, or its version
// moved from the one the call carried.
func written(t testing.TB, a *apptest.App, u conformance.User, r apptest.Request) bool {
	t.Helper()
	res := a.Do(t, http.MethodGet, "/bookmarks/"+r.Vars["id"], u.Token, nil)
	if res.Status == http.StatusNotFound {
		return true
	}
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	return r.Version != nil && int64(res.JSON(t)["version"].(float64)) != *r.Version
}

// fixtures are the bookmarks module's, as its team would write them.
var fixtures = conformance.Fixtures{
	"bookmarks.list": {Valid: func(testing.TB, *apptest.App, conformance.User) apptest.Request { return apptest.Request{} }},
	"bookmarks.create": {
		Valid: func(testing.TB, *apptest.App, conformance.User) apptest.Request {
			return apptest.Request{Args: map[string]any{"url": "https://example.com/a", "title": "A page"}}
		},
		Conflicting: func(r apptest.Request) apptest.Request {
			r.Args["title"] = "Another page"
			return r
		},
		Invalid: func(_ testing.TB, _ *apptest.App, _ conformance.User, r apptest.Request) apptest.Request {
			r.Args["title"] = r.Args["url"] // each well formed; together they say nothing
			return r
		},
	},
	"bookmarks.get": {Valid: one},
	"bookmarks.update": {
		// A new address loses the old one, so it asks; a new title does not.
		Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
			return versioned(map[string]any{"url": "https://example.com/moved-" + uuid.NewString()})(t, a, u)
		},
		Harmless: versioned(map[string]any{"title": "Renamed"}),
		Invalid: func(t testing.TB, a *apptest.App, u conformance.User, r apptest.Request) apptest.Request {
			// A title that is fine alone, but the stored address itself.
			res := a.Do(t, http.MethodGet, "/bookmarks/"+r.Vars["id"], u.Token, nil)
			r.Args = map[string]any{"title": res.JSON(t)["url"]}
			return r
		},
		Locked: func(t testing.TB, a *apptest.App, u conformance.User, r apptest.Request) apptest.Request {
			res := a.Do(t, http.MethodPost, "/bookmarks/"+r.Vars["id"]+"/archive", u.Token, nil,
				"If-Match", strconv.Quote(strconv.FormatInt(*r.Version, 10)))
			require.Equal(t, http.StatusOK, res.Status, string(res.Body))
			v := int64(res.JSON(t)["version"].(float64))
			r.Version = &v
			return r
		},
		Written: written,
	},
	"bookmarks.archive": {Valid: versioned(nil), Written: written},
	"bookmarks.delete":  {Valid: one, Written: written},
}

func TestRegistryIsCovered(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, product(flaws{}))
	registrytest.RequireCovered(t, a.Server.Registry)
}

// TestExercise runs the kit over the bookmarks module written right: every
// refusal holds on both faces.
func TestExercise(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, product(flaws{}))
	conformance.Exercise(t, a, fixtures)
}

// TestTheModuleDrivesEveryScenario: the bookmarks module declares every
// guard that refuses something, so TestExercise runs every scenario.
func TestTheModuleDrivesEveryScenario(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, product(flaws{}))
	driven := map[string]bool{}
	for _, op := range a.Server.Registry.Operations() {
		for _, g := range conformance.Guards(op) {
			driven[g] = true
		}
	}
	for _, g := range guards.Order {
		if g == guards.NameRead || g == guards.NameMerge {
			require.False(t, driven[g], "%s refuses nothing itself and has no scenario", g)
			continue
		}
		require.True(t, driven[g], "no operation of the bookmarks module drives %s", g)
	}
}

// TestTheKitCatchesBrokenModules breaks the bookmarks module, one mistake
// at a time, and shows the scenario that passes on the module written
// right failing on the broken one, for the right reason.
func TestTheKitCatchesBrokenModules(t *testing.T) {
	t.Parallel()
	intact := apptest.New(t, product(flaws{}))
	tests := []struct {
		name      string
		flaws     flaws
		op, guard string
		symptom   string // what the failure says
	}{
		{"an owner check that ignores the user", flaws{ownerIgnoresUser: true},
			"bookmarks.delete", guards.NameOwner, "someone else's {id}"},
		{"a confirmation that acts before its token", flaws{impactDeletes: true},
			"bookmarks.delete", guards.NameConfirm, "bookmarks.delete: the confirmation's impact wrote to the database"},
		{"a lock judging a record read without its archived flag", flaws{loadForgetsArchive: true},
			"bookmarks.update", guards.NameLock, "a locked record: HTTP answered 409"},
		{"an update declared without a precondition", flaws{noPrecondition: true},
			"bookmarks.update", guards.NamePrecondition, "no version: HTTP answered 409"},
		{"an impact that loses nothing but says it does", flaws{harmlessAsks: true},
			"bookmarks.update", guards.NameConfirm, "a call that loses nothing acts without a token"},
		{"a refusal quoting a whole address", flaws{quotesWhole: true},
			"bookmarks.create", conformance.HostileText, "bookmarks.create, HTTP, url: an answer quotes at most 64 runes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Empty(t, refused(t, intact, fixtures, tt.op, tt.guard), "the module written right passes")
			broken := apptest.New(t, product(tt.flaws))
			failures := refused(t, broken, fixtures, tt.op, tt.guard)
			require.NotEmpty(t, failures, "the broken module is caught")
			require.Contains(t, strings.Join(failures, "\n"), tt.symptom)
		})
	}
}

// TestCheckRefusesADeleteWithoutConfirmation: a DELETE declared without
// confirmation and without a reason is refused when the registry is
// checked, before anything serves it.
func TestCheckRefusesADeleteWithoutConfirmation(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load("", nil)
	require.NoError(t, err)
	_, err = app.Registry(product(flaws{noConfirm: true}), cfg)
	require.ErrorContains(t, err, "bookmarks.delete: a DELETE acts without confirmation")
	_, err = app.Registry(product(flaws{}), cfg)
	require.NoError(t, err)
}

// TestFixturesTheScenariosNeed: an operation without a fixture, or a guard
// whose fixture field is missing, fails rather than passing unproven; and a
// Written probe that sees nothing fails too.
func TestFixturesTheScenariosNeed(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, product(flaws{}))
	without := func(id string, change func(*conformance.Fixture)) conformance.Fixtures {
		fx := conformance.Fixtures{}
		for k, v := range fixtures {
			fx[k] = v
		}
		f := fx[id]
		change(&f)
		fx[id] = f
		return fx
	}
	blind := func(testing.TB, *apptest.App, conformance.User, apptest.Request) bool { return false }
	tests := []struct {
		name      string
		fx        conformance.Fixtures
		op, guard string
		symptom   string
	}{
		{"no fixture", conformance.Fixtures{}, "bookmarks.get", guards.NameOwner, "bookmarks.get has no fixture"},
		{"no Valid", without("bookmarks.get", func(f *conformance.Fixture) { f.Valid = nil }),
			"bookmarks.get", guards.NameOwner, "no Valid call"},
		{"no Written", without("bookmarks.delete", func(f *conformance.Fixture) { f.Written = nil }),
			"bookmarks.delete", guards.NameConfirm, "needs Written"},
		{"a Written that sees nothing", without("bookmarks.delete", func(f *conformance.Fixture) { f.Written = blind }),
			"bookmarks.delete", guards.NameConfirm, "Written does not see the confirmed call's write"},
		{"no Harmless", without("bookmarks.update", func(f *conformance.Fixture) { f.Harmless = nil }),
			"bookmarks.update", guards.NameConfirm, "needs Harmless"},
		{"no Invalid", without("bookmarks.update", func(f *conformance.Fixture) { f.Invalid = nil }),
			"bookmarks.update", guards.NameValidate, "needs Invalid"},
		{"no Locked", without("bookmarks.update", func(f *conformance.Fixture) { f.Locked = nil }),
			"bookmarks.update", guards.NameLock, "needs Locked"},
		{"no Conflicting", without("bookmarks.create", func(f *conformance.Fixture) { f.Conflicting = nil }),
			"bookmarks.create", guards.NameIdempotency, "needs Conflicting"},
		{"a guard with no scenario", fixtures, "bookmarks.update", guards.NameRead, "refuses nothing itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			failures := refused(t, a, tt.fx, tt.op, tt.guard)
			require.NotEmpty(t, failures)
			require.Contains(t, strings.Join(failures, "\n"), tt.symptom)
		})
	}
}

// refused runs one scenario under a recorder and returns its failures.
func refused(t *testing.T, a *apptest.App, fx conformance.Fixtures, id, guard string) []string {
	t.Helper()
	op, ok := a.Server.Registry.Lookup(id)
	require.True(t, ok, id)
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		conformance.Run(r, a, fx, op, guard)
	}()
	<-done
	return r.failures
}

// recorder stands in for a test to observe a scenario failing: a failure is
// recorded, and a fatal one ends the scenario's goroutine as FailNow would.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any)                 { r.failures = append(r.failures, fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); r.FailNow() }
func (r *recorder) FailNow()                          { runtime.Goexit() }
