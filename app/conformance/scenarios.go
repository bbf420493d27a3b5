package conformance

import (
	"fmt"
	"maps"
	"net/http"
	"net/netip"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/tools"
)

// face is where a request is sent; a scenario builds one request per face,
// so that each face acts on records of its own.
type face int

const (
	viaHTTP face = iota
	viaMCP
)

// scenario is one guard's refusal driven for one operation, as user u.
type scenario struct {
	t        testing.TB
	a        *apptest.App
	op       *registry.Operation
	fx       Fixtures
	fix      Fixture
	u        User
	sessions map[string]*mcp.ClientSession // by token, for the MCP face
	addr     string                        // the client address HTTP calls come from (X-Forwarded-For)
	// census, when set, counts what each call changes in the module's
	// tables: a refusal, and a read, must change nothing. changed is what
	// the last call sent changed.
	census  *census
	changed []change
}

var addresses atomic.Uint32

// newAddress is a client address no other scenario uses, in the range kept
// for benchmarking (198.18.0.0/15), so per-address limits of parallel
// scenarios never count each other's calls.
func newAddress() string {
	n := addresses.Add(1)
	return netip.AddrFrom4([4]byte{198, 18 + byte(n>>16&1), byte(n >> 8), byte(n)}).String()
}

func (s *scenario) user(scopes []registry.Scope) User {
	s.t.Helper()
	u := newUser(s.t, s.a, scopes)
	s.sessions[u.Token] = u.MCP
	return u
}

// as makes r a call of the operation by u: fixtures name neither.
func (s *scenario) as(u User, r apptest.Request) apptest.Request {
	r.Op, r.Token = s.op, u.Token
	if _, ok := r.Header["X-Forwarded-For"]; !ok {
		r.Header = maps.Clone(r.Header)
		if r.Header == nil {
			r.Header = map[string]string{}
		}
		r.Header["X-Forwarded-For"] = s.addr // apptest trusts loopback as a proxy
	}
	if s.op.Idempotency.Creation() && r.Key == "" {
		r.Key = newKey()
	}
	return r
}

// valid is the fixture's valid call for u.
func (s *scenario) valid(u User) apptest.Request {
	s.t.Helper()
	return s.as(u, s.fix.Valid(s.t, s.a, u))
}

func newKey() string { return "conformance-" + uuid.NewString() }

// send sends r to one face. Under a census it holds background work while
// the call runs and fails when a refused call, or a read, changed the
// module's tables.
func (s *scenario) send(f face, r apptest.Request) apptest.Outcome {
	s.t.Helper()
	if s.census == nil || streams(s.op) {
		// A stream answers as the background work goes (a trip's events
		// until its computations settle): it cannot run while that work
		// is held, and is not counted.
		return s.deliver(f, r)
	}
	release := s.a.Queue.Hold()
	defer release()
	before := s.census.settled(s.t)
	out := s.deliver(f, r)
	s.changed = changes(before, s.census.take(s.t))
	if len(s.changed) == 0 {
		return out
	}
	switch {
	case out.Status >= 400:
		s.t.Fatalf("%s, %s: the call was refused (%d %s), yet it changed the module's tables: %s; "+
			"nothing may be written before every guard has passed (Load, Merge and impacts only read, Handle writes)",
			s.op.ID, faceName(f), out.Status, out.Type, describe(s.changed))
	case !s.op.Writes():
		s.t.Fatalf("%s, %s: a read changed the module's tables: %s", s.op.ID, faceName(f), describe(s.changed))
	}
	return out
}

// streams reports whether op answers an event stream.
func streams(op *registry.Operation) bool {
	return op.OutputType.Implements(reflect.TypeFor[registry.Streamer]())
}

// deliver sends r to one face.
func (s *scenario) deliver(f face, r apptest.Request) apptest.Outcome {
	s.t.Helper()
	if f == viaHTTP {
		return s.a.ViaHTTP(s.t, r)
	}
	return s.a.ViaMCP(s.t, s.sessions[r.Token], r)
}

// faces are the faces the operation answers on: HTTP, and MCP when it is a
// tool.
func (s *scenario) faces() []face {
	if s.op.Tool.IsTool() {
		return []face{viaHTTP, viaMCP}
	}
	return []face{viaHTTP}
}

// both sends the request build makes for each face, checks that each face
// refused it with the problem type want, and that both answered the same
// status. For an operation that is not a tool, the HTTP answer is returned
// twice.
func (s *scenario) both(name, want string, build func(f face) apptest.Request) (h, m apptest.Outcome) {
	s.t.Helper()
	h = s.send(viaHTTP, build(viaHTTP))
	require.Equal(s.t, want, h.Type, "%s, %s: HTTP answered %d %s", s.op.ID, name, h.Status, s.a.Explain(h))
	if !s.op.Tool.IsTool() {
		return h, h
	}
	m = s.send(viaMCP, build(viaMCP))
	require.Equal(s.t, want, m.Type, "%s, %s: MCP answered %d %s", s.op.ID, name, m.Status, s.a.Explain(m))
	require.Equal(s.t, h.Status, m.Status, "%s, %s: the same status on both faces", s.op.ID, name)
	return h, m
}

func problem(k registry.Kind) string { return registry.ProblemTypeBase + k.String() }

func (s *scenario) authenticate() {
	s.both("no token", problem(registry.KindUnauthenticated), func(face) apptest.Request {
		r := s.valid(s.u)
		r.Token = ""
		return r
	})
}

func (s *scenario) scope() {
	var others []registry.Scope
	for _, sc := range s.a.Server.Registry.Scopes() {
		if sc != s.op.Scope {
			others = append(others, sc)
		}
	}
	weak := s.user(others)
	h, m := s.both("a token without "+string(s.op.Scope), problem(registry.KindForbidden), func(face) apptest.Request {
		r := s.valid(s.u) // made by someone allowed to, sent by someone who is not
		r.Token = weak.Token
		return r
	})
	for _, o := range []apptest.Outcome{h, m} {
		require.Equal(s.t, string(s.op.Scope), o.Body["scope"], "%s: the refusal names the missing scope", s.op.ID)
	}
}

// rateLimit drives each declared limit on its own: the calls vary in
// everything but what that limit counts by (a fresh client address per
// call for a per-user or per-argument limit, a fresh user and valid call
// for a per-address one), so only that limit can be reached. First as
// many calls refused for their arguments (an unpublished one) are sent:
// they spend nothing, so the valid calls after them are all within the
// limit. A refusing limit then answers 429 with retryAfter; a silent one
// answers as a call within the limit did, never 429.
func (s *scenario) rateLimit() {
	for _, rule := range s.op.RateLimit.Rules() {
		s.addr = newAddress()
		s.u = s.user(s.a.Server.Registry.Scopes())
		fixed := s.valid(s.u) // one call, sent again: the limit counts calls, not intents
		call := func() apptest.Request {
			if rule.Key == registry.KeyAddress && len(s.op.RateLimit.Rules()) > 1 {
				// A user each, so that only the address is shared.
				return s.valid(s.user(s.a.Server.Registry.Scopes()))
			}
			if rule.Key == registry.KeyAddress {
				return clone(fixed) // nothing but the address is counted
			}
			r := clone(fixed)
			r.Header["X-Forwarded-For"] = newAddress()
			if s.op.Idempotency.Creation() {
				r.Key = newKey() // a repeated key is a replay, which spends no quota
			}
			return r
		}
		for i := range rule.Limit {
			r := call()
			r.Args = cloneMap(r.Args)
			if r.Args == nil {
				r.Args = map[string]any{}
			}
			r.Args["kitNotPublished"] = "x"
			refused := s.a.ViaHTTP(s.t, r)
			require.Contains(s.t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, refused.Status,
				"%s (%s): refused call %d is refused for its arguments, not limited: %s", s.op.ID, rule, i+1, s.a.Explain(refused))
		}
		var within apptest.Outcome
		for i := range rule.Limit {
			// Every call that reaches the limiter counts, whatever a later
			// guard answers (a repeat of a versioned write is 412), but
			// one refused for its arguments: those above spent nothing.
			within = s.a.ViaHTTP(s.t, call())
			require.NotEqual(s.t, http.StatusTooManyRequests, within.Status, "%s (%s): call %d is within the limit: %s", s.op.ID, rule, i+1, s.a.Explain(within))
		}
		if rule.Silent {
			over := s.a.ViaHTTP(s.t, call())
			require.Equal(s.t, within.Status, over.Status, "%s (%s): a silent limit answers over the limit as within it: %s", s.op.ID, rule, s.a.Explain(over))
			require.Empty(s.t, over.Header.Get("Retry-After"), "%s (%s): a silent limit says nothing", s.op.ID, rule)
			continue
		}
		if rule.Key != registry.KeyUser {
			// The MCP face's address is its session's; only HTTP calls
			// choose theirs.
			h := s.a.ViaHTTP(s.t, call())
			require.Equal(s.t, problem(registry.KindRateLimited), h.Type, "%s (%s): over the limit: %d %s", s.op.ID, rule, h.Status, s.a.Explain(h))
			require.NotEmpty(s.t, h.Header.Get("Retry-After"), "%s: a 429 says when to come back", s.op.ID)
			continue
		}
		h, m := s.both("over the limit", problem(registry.KindRateLimited), func(face) apptest.Request { return call() })
		require.NotEmpty(s.t, h.Header.Get("Retry-After"), "%s: a 429 says when to come back", s.op.ID)
		for _, o := range []apptest.Outcome{h, m} {
			require.NotEmpty(s.t, o.Body["retryAfter"], "%s: the refusal says when to come back", s.op.ID)
		}
	}
}

// owner drives, for each URI variable the owner rule covers in turn (the
// record by the caller, each child by its parent), an unknown value and
// the matching record of someone else, made by the module's own Valid
// fixture run as a second user: both are 404 with identical bodies that
// never echo the value, and someone else's record is not changed.
func (s *scenario) owner() {
	var other User
	var theirs apptest.Request
	sample := s.valid(s.u)
	for _, v := range s.op.URIVariables() {
		unknown := unknownLike(sample.Vars[v])
		hu, mu := s.both("an unknown {"+v+"}", problem(registry.KindNotFound), func(face) apptest.Request {
			r := s.valid(s.u)
			s.names(r, v)
			r.Vars = maps.Clone(r.Vars)
			r.Vars[v] = unknown
			return r
		})
		require.NotContains(s.t, string(hu.Raw)+string(mu.Raw), unknown, "%s: the value of {%s} is never echoed", s.op.ID, v)
		if s.op.Scope == registry.Public || (v == s.op.Owner.Var && s.op.Owner.Terms() != nil) {
			// A term of a closed list (registry.OneOf) is nobody's: every
			// caller may address every term, and only an unknown one is
			// 404. A public operation has no caller to own anything: its
			// rule judges the value alone (an active share code, say), so
			// another user's record is as readable as one's own.
			continue
		}
		if other.Token == "" {
			other = s.user(s.a.Server.Registry.Scopes())
			theirs = s.valid(other) // the module's own records, made by someone else
		}
		s.names(theirs, v)
		foreign := theirs.Vars[v]
		hf, mf := s.both("someone else's {"+v+"}", problem(registry.KindNotFound), func(face) apptest.Request {
			r := s.valid(s.u)
			if r.Vars[v] == foreign {
				s.t.Fatalf("%s: the Valid fixture named the same {%s} for two users (%q): the kit cannot tell theirs from one's own", s.op.ID, v, foreign)
			}
			r.Vars = maps.Clone(r.Vars)
			r.Vars[v] = foreign
			return r
		})
		require.Equal(s.t, unstamped(hu.Raw), unstamped(hf.Raw), "%s: an unknown {%s} and someone else's give byte-identical HTTP bodies", s.op.ID, v)
		require.Equal(s.t, unstamped(mu.Raw), unstamped(mf.Raw), "%s: an unknown {%s} and someone else's give identical tool errors", s.op.ID, v)
		require.NotContains(s.t, string(hf.Raw)+string(mf.Raw), foreign, "%s: the value of {%s} is never echoed", s.op.ID, v)
		if s.fix.Written != nil {
			require.False(s.t, s.fix.Written(s.t, s.a, other, theirs), "%s: someone else's record was changed through {%s}", s.op.ID, v)
		}
	}
}

// unknownLike is a value that names nothing, of the form of valid: a
// number where the Valid call names a position (a day's index), an id
// otherwise.
func unknownLike(valid string) string {
	if valid != "" && strings.Trim(valid, "0123456789") == "" {
		return "987654"
	}
	return uuid.NewString()
}

// names fails unless r names its record by the URI variable v.
func (s *scenario) names(r apptest.Request, v string) {
	s.t.Helper()
	if r.Vars[v] == "" {
		s.t.Fatalf("%s: Valid must name the record it acts on by the URI variable %q", s.op.ID, v)
	}
}

func (s *scenario) arguments() {
	const name = "zzUnpublished"
	h, m := s.both("an unpublished argument", problem(registry.KindInvalid), func(face) apptest.Request {
		r := s.valid(s.u)
		r.Args = cloneMap(r.Args)
		if r.Args == nil {
			r.Args = map[string]any{}
		}
		r.Args[name] = 1
		return r
	})
	for _, o := range []apptest.Outcome{h, m} {
		require.Contains(s.t, fields(o.Body), name, "%s: the argument is refused by name, never dropped", s.op.ID)
	}
}

// need fails when the fixture lacks the field a guard's scenario needs.
func (s *scenario) need(present bool, field, why string) {
	s.t.Helper()
	if !present {
		s.t.Fatalf("%s %s: its fixture needs %s", s.op.ID, why, field)
	}
}

func (s *scenario) validate() {
	s.need(s.fix.Invalid != nil, "Invalid, a call whose merged record breaks validation", "validates the merged record")
	h, m := s.both("an invalid merged record", problem(registry.KindInvalid), func(face) apptest.Request {
		return s.as(s.u, s.fix.Invalid(s.t, s.a, s.u, s.valid(s.u)))
	})
	require.NotEmpty(s.t, fields(h.Body), "%s: the refusal names the fields the record breaks", s.op.ID)
	require.Equal(s.t, fields(h.Body), fields(m.Body), "%s: the same fields on both faces", s.op.ID)
}

func (s *scenario) lock() {
	s.need(s.fix.Locked != nil, "Locked, a call on a record the lock refuses", "is locked by declaration")
	s.both("a locked record", problem(registry.KindLocked), func(face) apptest.Request {
		return s.as(s.u, s.fix.Locked(s.t, s.a, s.u, s.valid(s.u)))
	})
}

func (s *scenario) precondition() {
	versioned := func() apptest.Request {
		r := s.valid(s.u)
		if r.Version == nil {
			s.t.Fatalf("%s requires a version: Valid must carry the one it read (Request.Version)", s.op.ID)
		}
		return r
	}
	s.both("no version", problem(registry.KindPreconditionRequired), func(face) apptest.Request {
		r := versioned()
		r.Version = nil
		return r
	})
	s.both("a stale version", problem(registry.KindPreconditionFailed), func(face) apptest.Request {
		r := versioned()
		stale := *r.Version - 1
		r.Version = &stale
		return r
	})
	h, m := s.both("a malformed version", problem(registry.KindMalformed), func(f face) apptest.Request {
		r := versioned()
		r.Version = nil
		if f == viaHTTP {
			r.Header = map[string]string{"If-Match": "abc"}
			return r
		}
		r.Args = cloneMap(r.Args)
		if r.Args == nil {
			r.Args = map[string]any{}
		}
		r.Args[tools.ArgVersion] = "abc"
		return r
	})
	require.Equal(s.t, withoutRequestID(h.Body), withoutRequestID(m.Body), "%s: a malformed version gets the same refusal on both faces", s.op.ID)
}

func (s *scenario) confirm() {
	s.need(s.fix.Written != nil, "Written, the probe that a call without a token wrote nothing", "asks for confirmation")
	var asked, forged []apptest.Request
	h, m := s.both("no confirmation token", operations.ConfirmationType, func(face) apptest.Request {
		r := s.valid(s.u)
		asked = append(asked, r)
		return clone(r)
	})
	for _, o := range []apptest.Outcome{h, m} {
		require.NotEmpty(s.t, o.Body["confirmationToken"], "%s: a confirmation answer carries its token", s.op.ID)
	}
	s.both("a forged confirmation token", problem(registry.KindConflict), func(face) apptest.Request {
		r := s.valid(s.u)
		forged = append(forged, r)
		r = clone(r)
		r.Confirm = "forged-" + uuid.NewString()
		return r
	})
	for _, r := range append(asked, forged...) {
		require.False(s.t, s.fix.Written(s.t, s.a, s.u, r), "%s: nothing is written without a valid confirmation token", s.op.ID)
	}
	// A probe that never sees a write proves nothing: the first call,
	// confirmed with the token it was given, must be seen.
	r := clone(asked[0])
	r.Confirm, _ = h.Body["confirmationToken"].(string)
	done := s.a.ViaHTTP(s.t, r)
	require.Less(s.t, done.Status, 300, "%s: the call confirmed with its token acts: %s", s.op.ID, s.a.Explain(done))
	require.True(s.t, s.fix.Written(s.t, s.a, s.u, asked[0]), "%s: Written does not see the confirmed call's write, so it cannot prove a refusal wrote nothing", s.op.ID)
	s.confirmByRoundTrip() // the multi round-trip path: mrtr.go
	if !s.op.Confirm.OnlyWhenLoses() {
		return
	}
	// An impact that loses nothing asks nothing: the call acts at once.
	s.need(s.fix.Harmless != nil, "Harmless, a call whose impact loses nothing", "asks only when it loses something")
	for _, f := range s.faces() {
		r := s.as(s.u, s.fix.Harmless(s.t, s.a, s.u))
		o := s.send(f, clone(r))
		require.Less(s.t, o.Status, 300, "%s: a call that loses nothing acts without a token: %s", s.op.ID, s.a.Explain(o))
		require.NotEqual(s.t, operations.ConfirmationType, o.Type, "%s: a call that loses nothing is not asked to confirm", s.op.ID)
		require.True(s.t, s.fix.Written(s.t, s.a, s.u, r), "%s: the call that loses nothing wrote", s.op.ID)
	}
}

func (s *scenario) idempotency() {
	s.both("a malformed key", problem(registry.KindMalformed), func(face) apptest.Request {
		r := s.valid(s.u)
		r.Key = "too-short"
		return r
	})
	s.need(s.fix.Conflicting != nil, "Conflicting, arguments another call of the same key must not reuse", "is an idempotent creation")
	base := s.valid(s.u)
	first := s.send(viaHTTP, clone(base))
	require.Less(s.t, first.Status, 300, "%s: the valid creation succeeds: %s", s.op.ID, s.a.Explain(first))
	s.createdOnce()
	s.both("the key reused with other arguments", problem(registry.KindConflict), func(face) apptest.Request {
		r := s.as(s.u, s.fix.Conflicting(clone(base)))
		r.Key = base.Key
		return r
	})
	for _, f := range s.faces() {
		again := s.send(f, clone(base))
		require.Less(s.t, again.Status, 300, "%s: the same key and arguments are a replay: %s", s.op.ID, s.a.Explain(again))
		if s.census != nil && len(s.changed) > 0 {
			s.t.Fatalf("%s, %s: a replay changed the module's tables: %s; a replay answers the first call's record and writes nothing",
				s.op.ID, faceName(f), describe(s.changed))
		}
		if id, ok := first.Body["id"]; ok {
			require.Equal(s.t, id, again.Body["id"], "%s: a replay answers what the first call created", s.op.ID)
		} else {
			require.Equal(s.t, first.Body, again.Body, "%s: a replay answers the first call's result", s.op.ID)
		}
	}
}

// createdOnce fails, under a census, unless the creation just sent made
// exactly one record: one row in the table its record names (a bun
// model's table). A record naming no table (a creation whose state is
// elsewhere) is not counted.
func (s *scenario) createdOnce() {
	s.t.Helper()
	table := recordTable(s.op)
	if s.census == nil || table == "" {
		return
	}
	if n := addedTo(s.changed, table); n != 1 {
		s.t.Fatalf("%s: a valid creation must write its record exactly once; it added %d row(s) to %s (%s)",
			s.op.ID, n, table, describe(s.changed))
	}
}

// fields lists the fields a problem's violations name, sorted.
func fields(problem map[string]any) []string {
	var out []string
	vs, _ := problem["violations"].([]any)
	for _, v := range vs {
		if m, ok := v.(map[string]any); ok {
			out = append(out, fmt.Sprint(m["field"]))
		}
	}
	sort.Strings(out)
	return out
}

// clone copies r deeply enough that a fixture or a scenario changing the
// copy leaves r as it was.
func clone(r apptest.Request) apptest.Request {
	c := r
	c.Vars = maps.Clone(r.Vars)
	c.Args = cloneMap(r.Args)
	c.Files = maps.Clone(r.Files)
	c.Header = maps.Clone(r.Header)
	if r.Version != nil {
		v := *r.Version
		c.Version = &v
	}
	return c
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	}
	return v
}
