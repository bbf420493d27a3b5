package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/tools"
)

// The scenarios Exercise runs beside the guards' refusals and the hostile
// checks: what a declaration cannot show, judged on the wire.
const (
	// ScenarioValid: the Valid call succeeds on both faces, with the same
	// status class and the same structured answer (a confirmed operation
	// is confirmed with the token it is given first).
	ScenarioValid = "valid"
	// ScenarioCollection: a read, once another user's records exist
	// (every Valid fixture run as that user, every creation sent), holds
	// none of their ids anywhere in its answer, on either face.
	ScenarioCollection = "collection"
	// ScenarioListing: a tool is listed with the union of its operations'
	// hints, and only to a token holding every scope they need.
	ScenarioListing = "listing"
	// ScenarioMerge: the merged record keeps every field the input could
	// have changed but did not send, as stored: validation judges the
	// stored record with the change, not the input alone.
	ScenarioMerge = "merge"
)

// Scenarios lists what Exercise drives for op, in order: a refusal per
// guard that applies (Guards), the hostile checks (Hostile), and the
// policy scenarios that apply.
func Scenarios(reg *registry.Registry, op *registry.Operation) []string {
	out := append(Guards(op), Hostile(op)...)
	out = append(out, ScenarioValid)
	if !op.Writes() {
		out = append(out, ScenarioCollection)
	}
	if op.Tool.IsTool() && firstOfTool(reg, op) {
		out = append(out, ScenarioListing)
	}
	if op.Load != nil && op.Merge != nil {
		out = append(out, ScenarioMerge)
	}
	return out
}

// counted are the scenarios the write census runs again, one call at a
// time: every one whose calls are refusals, reads or creations. Rate
// limits (whose calls within the limit act) and the listing (no call)
// are left out.
func counted(reg *registry.Registry, op *registry.Operation) []string {
	var out []string
	for _, sc := range Scenarios(reg, op) {
		if sc != guards.NameRateLimit && sc != ScenarioListing {
			out = append(out, sc)
		}
	}
	return out
}

// firstOfTool reports whether op is the first operation of its tool, the
// one its listing scenario runs on.
func firstOfTool(reg *registry.Registry, op *registry.Operation) bool {
	return len(toolOps(reg, op.Tool.Name)) > 0 && toolOps(reg, op.Tool.Name)[0] == op
}

func toolOps(reg *registry.Registry, name string) []*registry.Operation {
	for _, ops := range reg.Tools() {
		if ops[0].Tool.Name == name {
			return ops
		}
	}
	return nil
}

// FixtureProblems is what Exercise reports before driving anything: the
// operations of reg without a fixture, the fixtures of no operation, and
// the fixture fields the declarations give the kit no use for.
func FixtureProblems(reg *registry.Registry, fx Fixtures) []string {
	return fixtureProblems(reg.Operations(), fx)
}

// fixtureProblems names the operations without a fixture, the fixtures of
// no operation (a renamed ID leaves one behind), and the fixture fields
// the kit cannot use because the declaration lacks their guard (a Locked
// fixture on an operation without a lock is a lock that was removed).
func fixtureProblems(ops []*registry.Operation, fx Fixtures) []string {
	out := unfixed(ops, fx)
	for _, op := range ops {
		f, ok := fx[op.ID]
		if !ok {
			continue
		}
		unusable := func(present bool, field, lacks, fix string) {
			if present {
				out = append(out, fmt.Sprintf("%s: its fixture gives %s, but the operation %s, so the kit cannot use it: %s", op.ID, field, lacks, fix))
			}
		}
		unusable(f.Conflicting != nil && !op.Idempotency.Creation(), "Conflicting", "is not an idempotent creation",
			"declare registry.CreationReplayedBy, or remove the fixture field")
		unusable(f.Invalid != nil && !op.Validate.Validates(), "Invalid", "validates nothing",
			"declare registry.ValidateWith, or remove the fixture field")
		unusable(f.Locked != nil && !op.Lock.Applies(), "Locked", "declares no lock",
			"declare registry.LockWhen, or remove the fixture field")
		unusable(f.Harmless != nil && !op.Confirm.OnlyWhenLoses(), "Harmless", "does not ask only when it loses something",
			"declare registry.ConfirmWhenLoses, or remove the fixture field")
	}
	sort.Strings(out)
	return out
}

// validCall drives the Valid call on every face the operation answers on.
func (s *scenario) validCall() {
	var outs []apptest.Outcome
	for _, f := range s.faces() {
		r := s.valid(s.u)
		o := s.send(f, clone(r))
		if o.Type == operations.ConfirmationType {
			// A confirmed operation asks first; the call confirmed with
			// its token is the one that must succeed.
			r.Confirm, _ = o.Body["confirmationToken"].(string)
			o = s.send(f, r)
		}
		if o.Status >= 300 && !(f == viaHTTP && o.Status == s.op.HTTP.Status) { // a declared 303 is the success of a form
			s.t.Fatalf("%s, %s: the Valid call must succeed, but it answered %d %s", s.op.ID, faceName(f), o.Status, s.a.Explain(o))
		}
		if s.op.Idempotency.Creation() && f == viaHTTP {
			s.createdOnce()
		}
		outs = append(outs, o)
	}
	if len(outs) < 2 || outs[0].Body == nil || outs[1].Body == nil {
		return // one face, or an answer without a body (204)
	}
	if where, ok := sameShape(outs[0].Body, outs[1].Body, ""); !ok {
		s.t.Fatalf("%s: the Valid call answers differently on HTTP and MCP at %s:\n\tHTTP %s\n\tMCP  %s",
			s.op.ID, where, outs[0].Raw, outs[1].Raw)
	}
}

// sameShape reports whether two answers have the same structure: every
// member both hold is of the same kind (object, array, value) in each,
// recursively, arrays compared element by element as far as both go.
// Values are not compared, since each face acted on records of its own,
// and neither are members one of them leaves out: a body holds no member
// for what was never computed (ADR-074), and the two records may be at
// different stages of their background work. It names the first place
// that differs.
func sameShape(a, b any, at string) (string, bool) {
	if a == nil || b == nil {
		return "", true
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return at + " (an object on HTTP only)", false
		}
		for k, v := range x {
			if w, ok := y[k]; ok {
				if where, ok := sameShape(v, w, at+"."+k); !ok {
					return where, false
				}
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			return at + " (an array on HTTP only)", false
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			if where, ok := sameShape(x[i], y[i], fmt.Sprintf("%s[%d]", at, i)); !ok {
				return where, false
			}
		}
	default:
		switch b.(type) {
		case map[string]any, []any:
			return at + " (a value on HTTP, not on MCP)", false
		}
	}
	return "", true
}

// population is another user's records in one application: the ids the
// collection scenario must never find in a read of the first user.
type population struct {
	once sync.Once
	ids  []string
	err  string
}

var populations sync.Map // *apptest.App → *population

// theirs is the ids of the records another user holds, made once per
// application: every Valid fixture run as that user, and every creation
// sent. Values shorter than eight characters (a day's position) are left
// out: they name nothing on their own.
func (s *scenario) theirs() []string {
	s.t.Helper()
	v, _ := populations.LoadOrStore(s.a, &population{})
	p := v.(*population)
	p.once.Do(func() {
		rec := &catching{TB: s.t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.ids = s.populate(rec)
		}()
		<-done
		p.err = strings.Join(rec.failures, "\n")
	})
	if p.err != "" {
		s.t.Fatalf("making another user's records for the collection scenarios failed: %s", p.err)
	}
	return p.ids
}

func (s *scenario) populate(t testing.TB) []string {
	seen := map[string]bool{}
	var ids []string
	keep := func(id string) {
		if len(id) >= 8 && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, op := range s.a.Server.Registry.Operations() {
		fix, ok := s.fx[op.ID]
		if !ok || fix.Valid == nil || op.Scope == registry.Public {
			continue
		}
		// A user per operation, so that no per-user limit of one fixture
		// counts another's calls: each is someone other than the reader.
		other := newUser(t, s.a, s.a.Server.Registry.Scopes())
		r := fix.Valid(t, s.a, other)
		for _, v := range op.URIVariables() {
			if v == op.Owner.Var && op.Owner.Terms() != nil {
				continue // a term everybody addresses
			}
			keep(r.Vars[v])
		}
		if !op.Idempotency.Creation() {
			continue
		}
		r.Op, r.Token = op, other.Token
		r.Key = newKey()
		r.Header = maps.Clone(r.Header)
		if r.Header == nil {
			r.Header = map[string]string{}
		}
		r.Header["X-Forwarded-For"] = newAddress()
		out := s.a.ViaHTTP(t, r)
		if id, ok := out.Body["id"].(string); ok && out.Status < 300 {
			keep(id)
		}
	}
	return ids
}

// collection reads as the first user once another user's records exist.
func (s *scenario) collection() {
	theirs := s.theirs()
	for _, f := range s.faces() {
		o := s.send(f, s.valid(s.u))
		for _, id := range theirs {
			if bytes.Contains(o.Raw, []byte(id)) {
				s.t.Fatalf("%s, %s: the answer holds %q, an id of another user's record: a read shows the caller's records only "+
					"(a listing must filter by the caller, c.UserID())", s.op.ID, faceName(f), id)
			}
		}
	}
}

// listing reads tools/list with tokens of every scope the tool needs but
// one, and with all of them.
func (s *scenario) listing() {
	reg := s.a.Server.Registry
	ops := toolOps(reg, s.op.Tool.Name)
	listed := func(u User) *mcp.Tool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		session := u.MCP
		if s.op.Tool.TaskOnly { // listed where it can be called (apptest.LegacyMCP)
			session = s.a.LegacyMCP(s.t, u.Token)
		}
		res, err := session.ListTools(ctx, nil)
		require.NoError(s.t, err, "tools/list")
		for _, t := range res.Tools {
			if t.Name == s.op.Tool.Name {
				return t
			}
		}
		return nil
	}
	tool := listed(s.u)
	require.NotNil(s.t, tool, "%s: a token holding every scope is listed the tool %s", s.op.ID, s.op.Tool.Name)
	want := tools.Hints(ops)
	got := registry.Hints{ReadOnly: tool.Annotations.ReadOnlyHint, Idempotent: tool.Annotations.IdempotentHint,
		Destructive: tool.Annotations.DestructiveHint != nil && *tool.Annotations.DestructiveHint,
		OpenWorld:   tool.Annotations.OpenWorldHint != nil && *tool.Annotations.OpenWorldHint}
	require.Equal(s.t, want, got, "%s: the tool %s is listed with the union of its operations' hints", s.op.ID, s.op.Tool.Name)
	var needs []registry.Scope
	for _, op := range ops {
		if op.Scope != registry.Public && !slices.Contains(needs, op.Scope) {
			needs = append(needs, op.Scope)
		}
	}
	for _, missing := range needs {
		var held []registry.Scope
		for _, sc := range reg.Scopes() {
			if sc != missing {
				held = append(held, sc)
			}
		}
		require.Nil(s.t, listed(s.user(held)), "%s: the tool %s is not listed to a token without %s, which one of its actions needs",
			s.op.ID, s.op.Tool.Name, missing)
	}
}

// merge runs the operation's read and merge in process on the Valid call,
// and compares what the input could have changed but did not send.
func (s *scenario) merge() {
	ctx := context.Background()
	r := s.valid(s.u)
	p, err := s.a.Auth.Authenticate(ctx, s.u.Token)
	require.NoError(s.t, err)
	require.NotNil(s.t, p, "the kit's own token resolves")
	raw := map[string]json.RawMessage{}
	for k, v := range r.Args {
		b, err := json.Marshal(v)
		require.NoError(s.t, err)
		raw[k] = b
	}
	in := s.op.NewInput()
	if len(r.Args) > 0 {
		b, _ := json.Marshal(r.Args)
		require.NoError(s.t, json.Unmarshal(b, in), "%s: the Valid arguments decode into the input", s.op.ID)
	}
	c := &registry.Call{Op: s.op, Face: registry.FaceHTTP, Now: time.Now(), Principal: p, Vars: r.Vars, Args: raw, Input: in}
	prev, err := s.op.Load(ctx, c)
	require.NoError(s.t, err, "%s: Load of the Valid call", s.op.ID)
	c.Previous = prev
	merged, err := s.op.Merge(ctx, c)
	require.NoError(s.t, err, "%s: Merge of the Valid call", s.op.ID)
	pv, mv := reflect.Indirect(reflect.ValueOf(prev)), reflect.Indirect(reflect.ValueOf(merged))
	if pv.Type() != mv.Type() || pv.Kind() != reflect.Struct {
		return // the merge builds another shape than the stored record: nothing to compare field by field
	}
	for _, f := range fieldsOf(s.op.InputType) {
		if _, sent := r.Args[jsonName(f)]; sent {
			continue
		}
		if _, ok := pv.Type().FieldByName(f.Name); !ok {
			continue
		}
		was, is := pv.FieldByName(f.Name), mv.FieldByName(f.Name)
		if !reflect.DeepEqual(was.Interface(), is.Interface()) {
			s.t.Fatalf("%s: the Valid call does not send %s, yet the merged record changes it (stored %v, merged %v): "+
				"Merge must apply the input onto a copy of c.Previous, so that validation judges the stored record with the change",
				s.op.ID, jsonName(f), was.Interface(), is.Interface())
		}
	}
}

// catching stands in for a test to collect failures instead of failing
// it: a fatal failure ends the goroutine it runs on, as FailNow would.
type catching struct {
	testing.TB
	mu       sync.Mutex
	failures []string
}

func (c *catching) Helper() {}
func (c *catching) Errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures = append(c.failures, fmt.Sprintf(format, args...))
}
func (c *catching) Error(args ...any)                 { c.Errorf("%s", fmt.Sprint(args...)) }
func (c *catching) Fatalf(format string, args ...any) { c.Errorf(format, args...); c.FailNow() }
func (c *catching) Fatal(args ...any)                 { c.Error(args...); c.FailNow() }
func (c *catching) FailNow()                          { runtime.Goexit() }
func (c *catching) Failed() bool                      { return len(c.failures) > 0 }
