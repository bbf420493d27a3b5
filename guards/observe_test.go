package guards_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// refusing refuses every call with err, or passes it on when err is nil.
type refusing struct {
	name string
	err  error
}

func (r refusing) Name() string { return r.name }
func (r refusing) Check(ctx context.Context, c *registry.Call, next guards.Next) error {
	if r.err != nil {
		return r.err
	}
	return next(ctx, c)
}

// recorder is a guards.Observer.
type recorder struct {
	refused []string
	ran     []error
}

func (r *recorder) Refused(_ *registry.Call, guard string, e *registry.Error) {
	r.refused = append(r.refused, guard+" "+e.Kind.String())
}
func (r *recorder) Ran(_ *registry.Call, err error, _ time.Duration) { r.ran = append(r.ran, err) }

// chainWith is a chain of pass-through guards but for the given ones.
func chainWith(t *testing.T, gs ...guards.Guard) *guards.Chain {
	t.Helper()
	given := map[string]guards.Guard{}
	for _, g := range gs {
		given[g.Name()] = g
	}
	var all []guards.Guard
	for _, n := range guards.Order {
		if g, ok := given[n]; ok {
			all = append(all, g)
		} else {
			all = append(all, refusing{name: n})
		}
	}
	ch, err := guards.NewChain(all...)
	require.NoError(t, err)
	return ch
}

// TestObserverHearsARefusalOnceWhereItArose: the guard that refuses is
// named, not the ones it passes through on the way out; an error of the
// handler is no guard's refusal; every call is told as run.
func TestObserverHearsARefusalOnceWhereItArose(t *testing.T) {
	t.Parallel()
	failing := errors.New("disk full")
	tests := []struct {
		name    string
		guard   guards.Guard
		handler error
		refused []string
		kind    registry.Kind
	}{
		{"lock refuses", refusing{guards.NameLock, registry.Fail(registry.KindLocked, "locked")}, nil,
			[]string{"lock locked"}, registry.KindLocked},
		{"the handler fails", nil, failing, nil, registry.KindInternal},
		{"everything passes", nil, nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gs []guards.Guard
			if tt.guard != nil {
				gs = append(gs, tt.guard)
			}
			rec := &recorder{}
			ch := chainWith(t, gs...).WithObserver(rec)
			op := everyGuard()
			op.Handle = func(context.Context, *registry.Call) (any, error) { return "done", tt.handler }
			err := ch.Run(context.Background(), &registry.Call{Op: op})
			require.Equal(t, tt.refused, rec.refused)
			require.Len(t, rec.ran, 1)
			require.Equal(t, err, rec.ran[0])
			if tt.guard != nil || tt.handler != nil {
				require.Equal(t, tt.kind, registry.AsError(err).Kind)
			}
		})
	}
}

// tokens resolves the tokens it holds; forget revokes one.
type tokens struct {
	mu sync.Mutex
	m  map[string]registry.Principal
}

func (s *tokens) Authenticate(_ context.Context, credential string) (*registry.Principal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.m[credential]
	if !ok {
		return nil, nil
	}
	return &p, nil
}

func (s *tokens) set(token string, p *registry.Principal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p == nil {
		delete(s.m, token)
		return
	}
	s.m[token] = *p
}

// TestRecheckJudgesTheCredentialAgain: a call that was let through is
// judged again by the chain's own authenticate and scope guards, as it
// stands now: revoked is 401, narrowed is 403, a public call has nothing
// to re-check.
func TestRecheckJudgesTheCredentialAgain(t *testing.T) {
	t.Parallel()
	store := &tokens{m: map[string]registry.Principal{}}
	ch := chainWith(t, guards.Authenticate{Tokens: store}, guards.Scope{})
	done := func(context.Context, *registry.Call) (any, error) { return "done", nil }
	op := &registry.Operation{ID: "x.events", Scope: "x:read", HTTP: registry.Get("/x/events"), Handle: done}
	public := &registry.Operation{ID: "x.shared", Scope: registry.Public, HTTP: registry.Get("/s/{code}"), Handle: done}
	tests := []struct {
		name string
		op   *registry.Operation
		now  *registry.Principal // what the token resolves to now; nil: revoked
		want registry.Kind
		ok   bool
	}{
		{"still valid", op, &registry.Principal{UserID: "u1", Scopes: []registry.Scope{"x:read"}}, 0, true},
		{"revoked", op, nil, registry.KindUnauthenticated, false},
		{"narrowed", op, &registry.Principal{UserID: "u1", Scopes: []registry.Scope{"x:write"}}, registry.KindForbidden, false},
		{"public", public, nil, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store.set("tok", &registry.Principal{UserID: "u1", Scopes: []registry.Scope{"x:read"}})
			c := &registry.Call{Op: tt.op, Credential: "tok"}
			require.NoError(t, ch.Run(context.Background(), c), "the call is let through first")
			store.set("tok", tt.now)
			err := ch.Recheck(context.Background(), c)
			if tt.ok {
				require.NoError(t, err)
				return
			}
			require.Equal(t, tt.want, registry.AsError(err).Kind)
		})
	}
}
