// Package conformance is the kit a product team runs over its own modules,
// beside the registry walk of registrytest. For every operation of the
// application's registry and every guard that applies to it
// (guards.Applies), it drives on both faces a call that guard must refuse,
// and compares the refusals: the same problem type and status on HTTP and on
// MCP. Declarations alone prove nothing; refusals do.
//
// It works from fixtures each module writes in its own test file, one per
// operation ID:
//
//	func TestConformance(t *testing.T) {
//		a := apptest.New(t, notes.Product())
//		conformance.Exercise(t, a, conformance.Fixtures{
//			"notes.get": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
//				return apptest.Request{Vars: map[string]string{"id": newNote(t, a, u)}}
//			}},
//			// one entry per operation
//		})
//	}
//
// An operation without a fixture fails the kit, and so does a guard whose
// fixture field is missing: Conflicting for an idempotent creation, Invalid
// for a validated write, Locked for a locked one, Written for a confirmed
// one. The kit sets the operation and the caller's token on every request a
// fixture returns, and gives a creation a fresh idempotency key when its
// fixture names none. The foreign id of the owner scenario comes from the
// module's own Valid fixture run as a second user, so a store that forgets
// the user is caught on any module.
package conformance

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// User is one person acting on the application.
type User struct {
	Email string
	Token string             // carries every scope the registry declares
	MCP   *mcp.ClientSession // a session on /mcp with that token
}

// Fixture is what a module writes, in its own test file, for one operation.
type Fixture struct {
	// Valid returns a call of the operation that every guard lets through, for user u:
	// it creates (as u) whatever the call needs and names it by URI variable.
	Valid func(t testing.TB, a *apptest.App, u User) apptest.Request
	// Conflicting changes a valid creation's arguments so that reusing its idempotency key must be refused (idempotency).
	Conflicting func(r apptest.Request) apptest.Request
	// Invalid returns a call whose arguments are each well formed but whose merged record breaks validation (validate).
	Invalid func(t testing.TB, a *apptest.App, u User, valid apptest.Request) apptest.Request
	// Locked returns a call on a record the lock guard must refuse (lock).
	Locked func(t testing.TB, a *apptest.App, u User, valid apptest.Request) apptest.Request
	// Written reports whether the call r, made valid for u, changed anything: the probe that a refused call wrote nothing.
	Written func(t testing.TB, a *apptest.App, u User, r apptest.Request) bool
	// Harmless returns a call whose impact loses nothing, for an operation declared with
	// registry.ConfirmWhenLoses (confirm): it must act at once, without a token, on both faces.
	Harmless func(t testing.TB, a *apptest.App, u User) apptest.Request
}

// Fixtures are a module's fixtures by operation ID.
type Fixtures map[string]Fixture

var users atomic.Int64

// NewUser creates a user with a token carrying every declared scope (or the given ones) and an MCP session.
func NewUser(t testing.TB, a *apptest.App, scopes ...registry.Scope) User {
	t.Helper()
	if len(scopes) == 0 {
		scopes = a.Server.Registry.Scopes()
	}
	return newUser(t, a, scopes)
}

// newUser issues a token carrying exactly scopes, none included: the scope
// scenario of a registry with one scope needs a token without any.
func newUser(t testing.TB, a *apptest.App, scopes []registry.Scope) User {
	t.Helper()
	email := fmt.Sprintf("user%d@example.com", users.Add(1))
	tok, err := a.Tokens.IssueToken(context.Background(), email, scopes)
	if err != nil {
		t.Fatalf("issue a token for %s carrying %v: %v", email, scopes, err)
	}
	return User{Email: email, Token: tok, MCP: a.MCP(t, tok)}
}

// nonRefusing are the guards that refuse nothing themselves; what they do is
// proven through the guards that judge their result.
var nonRefusing = map[string]string{
	guards.NameRead:  "loads Previous; proven by the lock scenario (the stored record is judged, not the request)",
	guards.NameMerge: "builds Merged; proven by the validate scenario (the merged record is judged)",
}

// Guards lists, in chain order, the guards the kit drives a refusal for on
// op: those that apply to it (guards.Applies) and refuse something
// themselves.
func Guards(op *registry.Operation) []string {
	var out []string
	for _, g := range guards.Order {
		if _, ok := nonRefusing[g]; !ok && guards.Applies(g, op) {
			out = append(out, g)
		}
	}
	return out
}

// Exercise drives, for every operation of a's registry, on both faces,
// every scenario that applies to it (Scenarios): a request each guard
// that applies must refuse (guards.Applies), the hostile checks, the
// Valid call, another user's records kept out of every read, the tool's
// listing and the merged record. It then drives them again one call at a
// time, counting what each call changes in the module's own tables: a
// refusal, a replay and a read change nothing, a creation writes its
// record once. An operation without a fixture fails, and so does a guard
// whose fixture field is missing (Invalid for a validated operation,
// Written for a confirmed one) or a fixture field the declaration gives no
// use (Locked without a lock).
//
// The application must be the kit's alone while it runs: the count reads
// whole tables.
func Exercise(t *testing.T, a *apptest.App, fx Fixtures) {
	t.Helper()
	reg := a.Server.Registry
	ops := reg.Operations()
	for _, p := range fixtureProblems(ops, fx) {
		t.Error(p)
	}
	t.Run("each", func(t *testing.T) {
		for _, op := range ops {
			if _, ok := fx[op.ID]; !ok {
				continue // reported above
			}
			for _, sc := range Scenarios(reg, op) {
				t.Run(op.ID+"/"+sc, func(t *testing.T) {
					t.Parallel()
					run(t, a, fx, op, sc, nil)
				})
			}
		}
	})
	if t.Failed() {
		return // the count would repeat the failures above, one call at a time
	}
	t.Run("writes", func(t *testing.T) {
		c := newCensus(t, a)
		for _, op := range ops {
			for _, sc := range counted(reg, op) {
				t.Run(op.ID+"/"+sc, func(t *testing.T) { run(t, a, fx, op, sc, c) })
			}
		}
	})
}

// Run drives one scenario of Scenarios for one operation (what Exercise
// runs in a subtest): a guard's name, a hostile check or a policy
// scenario.
func Run(t testing.TB, a *apptest.App, fx Fixtures, op *registry.Operation, scenario string) {
	t.Helper()
	run(t, a, fx, op, scenario, nil)
}

// RunCounted is Run counting what each call changes in the module's own
// tables, as the second pass of Exercise does: a refused call, a replay
// or a read that changed a row fails, and so does a creation that did not
// write its record exactly once.
func RunCounted(t testing.TB, a *apptest.App, fx Fixtures, op *registry.Operation, scenario string) {
	t.Helper()
	run(t, a, fx, op, scenario, newCensus(t, a))
}

func run(t testing.TB, a *apptest.App, fx Fixtures, op *registry.Operation, name string, c *census) {
	t.Helper()
	fix, ok := fx[op.ID]
	if !ok {
		t.Fatalf("%s has no fixture: add one to the module's conformance test", op.ID)
	}
	if fix.Valid == nil {
		t.Fatalf("%s: its fixture has no Valid call, which every scenario breaks one thing of", op.ID)
	}
	s := &scenario{t: t, a: a, op: op, fx: fx, fix: fix, sessions: map[string]*mcp.ClientSession{}, addr: newAddress(), census: c}
	s.u = s.user(a.Server.Registry.Scopes())
	switch name {
	case ScenarioValid:
		s.validCall()
	case ScenarioCollection:
		s.collection()
	case ScenarioListing:
		s.listing()
	case ScenarioMerge:
		s.merge()
	case HostileFields:
		s.hostileFields()
	case HostileText:
		s.hostileText()
	case HostilePaging:
		s.hostilePaging()
	case HostileEcho:
		s.hostileEcho()
	default:
		s.refuse(name)
	}
}

// unfixed names the operations without a fixture and the fixtures of no
// operation (a renamed ID leaves one behind), sorted.
func unfixed(ops []*registry.Operation, fx Fixtures) []string {
	var out []string
	known := map[string]bool{}
	for _, op := range ops {
		known[op.ID] = true
		if _, ok := fx[op.ID]; !ok {
			out = append(out, fmt.Sprintf("%s has no fixture: add one to the module's conformance test (declarations alone prove nothing)", op.ID))
		}
	}
	for id := range fx {
		if !known[id] {
			out = append(out, fmt.Sprintf("a fixture names %s, which the registry does not declare", id))
		}
	}
	sort.Strings(out)
	return out
}

// Refuse drives the scenario of one guard for one operation (what Exercise runs in a subtest).
//
// The scenarios, each compared across faces (an operation that is not a
// tool is driven on HTTP alone):
//
//   - authenticate: no token, 401;
//   - scope: a token carrying every declared scope but op.Scope (possibly
//     none), 403 naming op.Scope;
//   - rate_limit: as many calls refused for their arguments, which spend
//     nothing, then the declared number of calls, then 429 with retryAfter;
//   - owner: an unknown id and someone else's (Valid run as a second user)
//     are both 404 with identical bodies that never echo the id; with
//     Written, the other user's record was not changed;
//   - arguments: an unpublished argument is refused by name (422);
//   - validate: Invalid, 422 naming the same fields on both faces;
//   - lock: Locked, 423;
//   - precondition: no version 428, a stale one 412, a malformed one (If-Match
//     "abc" on HTTP, version "abc" on MCP) the same 400 on both faces;
//   - confirm: no token answers a confirmation and writes nothing (Written),
//     a forged token is 409; the call confirmed with its token must then be
//     seen by Written, or the probe proves nothing; for an operation that
//     asks only when it loses something (registry.ConfirmWhenLoses), a
//     Harmless call acts at once without a token, and Written sees it;
//   - idempotency: a malformed key 400; the key reused with Conflicting
//     arguments 409; the same key and arguments replay what the first call
//     created (its "id", or else its whole answer).
//
// Refuse does not ask whether guard applies to op: a declaration that lost
// a guard is caught by its scenario failing.
func Refuse(t testing.TB, a *apptest.App, fx Fixtures, op *registry.Operation, guard string) {
	t.Helper()
	run(t, a, fx, op, guard, nil)
}

// refuse drives the refusal of one guard.
func (s *scenario) refuse(guard string) {
	t := s.t
	switch guard {
	case guards.NameAuthenticate:
		s.authenticate()
	case guards.NameScope:
		s.scope()
	case guards.NameRateLimit:
		s.rateLimit()
	case guards.NameOwner:
		s.owner()
	case guards.NameArguments:
		s.arguments()
	case guards.NameValidate:
		s.validate()
	case guards.NameLock:
		s.lock()
	case guards.NamePrecondition:
		s.precondition()
	case guards.NameConfirm:
		s.confirm()
	case guards.NameIdempotency:
		s.idempotency()
	default:
		if why, ok := nonRefusing[guard]; ok {
			t.Fatalf("the %s guard refuses nothing itself: it %s", guard, why)
		}
		t.Fatalf("no scenario %q", guard)
	}
}
