package guards_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// tally allows limit calls per key, forever.
type tally map[string]int

func (t tally) Allow(_ context.Context, key string, limit int, _ time.Duration) (bool, time.Duration, error) {
	if t[key] >= limit {
		return false, time.Minute, nil
	}
	t[key]++
	return true, 0, nil
}

func TestRateLimitKeys(t *testing.T) {
	t.Parallel()
	perEmail := registry.PerArgument("email", 2, time.Minute)
	perAddress := registry.PerIP(2, time.Minute)
	tests := []struct {
		name   string
		rule   registry.RateRule
		calls  []registry.Call // each sent once, in order
		refuse []bool          // whether each call is refused (429)
		silent []bool          // whether each call went through Limited
	}{
		{
			name: "per address: another address has its own count; no address is not counted",
			rule: perAddress,
			calls: []registry.Call{{ClientAddr: "192.0.2.1"}, {ClientAddr: "192.0.2.1"}, {ClientAddr: "192.0.2.1"},
				{ClientAddr: "192.0.2.2"}, {}, {}, {}},
			refuse: []bool{false, false, true, false, false, false, false},
		},
		{
			name: "per argument: trimmed and lower-cased, whoever sends it",
			rule: perEmail,
			calls: []registry.Call{{Args: args("A@x.org")}, {Args: args(" a@x.org "), ClientAddr: "192.0.2.9"},
				{Args: args("a@x.org")}, {Args: args("b@x.org")}, {}},
			refuse: []bool{false, false, true, false, false},
		},
		{
			name: "per URI variable: each trip of each user has its own count; a stranger's calls spend none of the owner's",
			rule: registry.PerVariable("id", 2, time.Minute),
			calls: []registry.Call{{Vars: vars("t1"), Principal: user("u1")}, {Vars: vars("t1"), Principal: user("u1")},
				{Vars: vars("t1"), Principal: user("u2")}, {Vars: vars("t1"), Principal: user("u2")}, {Vars: vars("t1"), Principal: user("u2")},
				{Vars: vars("t2"), Principal: user("u1")}, {Vars: vars("t1"), Principal: user("u1")}},
			refuse: []bool{false, false, false, false, true, false, true},
		},
		{
			name: "combined and silent: over either limit the call goes on, marked",
			rule: perEmail.And(perAddress).Silently(),
			calls: []registry.Call{{Args: args("a@x.org"), ClientAddr: "192.0.2.1"}, {Args: args("b@x.org"), ClientAddr: "192.0.2.1"},
				{Args: args("c@x.org"), ClientAddr: "192.0.2.1"}, {Args: args("a@x.org"), ClientAddr: "192.0.2.2"},
				{Args: args("a@x.org"), ClientAddr: "192.0.2.3"}},
			refuse: []bool{false, false, false, false, false},
			silent: []bool{false, false, true, false, true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &registry.Operation{ID: "x.y", RateLimit: tt.rule, HTTP: registry.Post("/y", http.StatusAccepted)}
			g := guards.RateLimit{Limiter: tally{}}
			for i, c := range tt.calls {
				c.Op = op
				reached := false
				err := g.Check(context.Background(), &c, func(context.Context, *registry.Call) error { reached = true; return nil })
				if tt.refuse[i] {
					require.Equal(t, registry.KindRateLimited, registry.AsError(err).Kind, "call %d", i+1)
					require.False(t, reached)
					continue
				}
				require.NoError(t, err, "call %d", i+1)
				require.True(t, reached, "call %d", i+1)
				require.Equal(t, tt.silent != nil && tt.silent[i], c.Limited, "call %d", i+1)
			}
		})
	}
}

func TestRateRuleDescribesItself(t *testing.T) {
	t.Parallel()
	r := registry.PerArgument("email", 3, 15*time.Minute).And(registry.PerIP(10, 15*time.Minute)).Silently()
	require.Equal(t, "3 calls per 15m0s per email (silent), 10 calls per 15m0s per client address (silent)", r.String())
	require.False(t, r.Refuses())
	require.True(t, registry.PerUser(1, time.Minute).And(registry.PerIP(2, time.Minute)).Refuses())
	require.Len(t, r.Rules(), 2)
	require.Empty(t, registry.NoRateLimit.Rules())
}

func args(email string) map[string]json.RawMessage {
	raw, _ := json.Marshal(email)
	return map[string]json.RawMessage{"email": raw}
}

func TestRegistryRefusesLimitsThatCountNothing(t *testing.T) {
	t.Parallel()
	type in struct {
		Email string `json:"email"`
	}
	type out struct{}
	declare := func(scope registry.Scope, rule registry.RateRule) error {
		reg := registry.New()
		registry.Add(reg, registry.Op[in, out]{
			ID: "x.ask", HTTP: registry.Post("/ask", http.StatusAccepted), Tool: registry.NotATool(registry.MotiveBrowserAndMailbox),
			Scope: scope, Owner: registry.CallerOwned, RateLimit: rule, Validate: registry.NotValidated, Lock: registry.NoLock,
			Precondition: registry.NoPrecondition, Confirm: registry.NoConfirm, Idempotency: registry.NotACreation,
			Handle: func(context.Context, *registry.Call, *in) (out, error) { return out{}, nil },
		})
		return reg.Check()
	}
	require.NoError(t, declare(registry.Public, registry.PerArgument("email", 3, time.Minute).And(registry.PerIP(10, time.Minute))))
	require.ErrorContains(t, declare(registry.Public, registry.PerUser(3, time.Minute)), "counts nobody")
	require.ErrorContains(t, declare(registry.Public, registry.PerArgument("mail", 3, time.Minute)), `argument "mail"`)
	require.ErrorContains(t, declare(registry.Scope("x:write"), registry.PerVariable("id", 3, time.Minute)), `URI variable "id"`)
}

// vars are the URI variables of a call on trip id.
func vars(id string) map[string]string { return map[string]string{"id": id} }

// user is the authenticated caller id.
func user(id string) *registry.Principal { return &registry.Principal{UserID: id} }
