package guards_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

type fixedKey []byte

func (k fixedKey) Key(context.Context) ([]byte, error) { return k, nil }

// asking is an operation whose handler asks a name, keeping a state, and
// greets once it has both the answer and its own state back.
func asking() *registry.Operation {
	return &registry.Operation{ID: "x.ask", Scope: registry.Public, HTTP: registry.Get("/x"),
		Handle: func(_ context.Context, c *registry.Call) (any, error) {
			if a, ok := c.Answer("name"); ok && a.Accepted() && c.InputState == "asked" {
				return "hello " + a.Values["name"].(string), nil
			}
			return nil, &registry.InputNeeded{State: "asked",
				Requests: map[string]registry.InputRequest{"name": {Kind: registry.InputForm, Message: "Your name?"}}}
		}}
}

// TestInputStateIsSealedForItsCall: a handler asking for input answers
// InputRequired with a sealed state; sent back unaltered with the answer,
// by the same caller for the same arguments before it expires, the
// handler reads its state; altered, for another caller or other
// arguments, or late, it is refused before the handler runs.
func TestInputStateIsSealedForItsCall(t *testing.T) {
	t.Parallel()
	var log []string
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	base, err := guards.NewChain(all(&log)...)
	require.NoError(t, err)
	seal := guards.InputSeal{Keys: fixedKey("0123456789abcdef0123456789abcdef"), Now: func() time.Time { return now }}
	ch := base.WithInputSeal(seal)
	call := func(user, arg string) *registry.Call {
		return &registry.Call{Op: asking(), Principal: &registry.Principal{UserID: user},
			Args: map[string]json.RawMessage{"a": json.RawMessage(`"` + arg + `"`)}}
	}
	first := call("u1", "x")
	err = ch.Run(context.Background(), first)
	var asked *registry.InputRequired
	require.ErrorAs(t, err, &asked)
	require.Contains(t, asked.Requests, "name")
	require.NotContains(t, asked.State, "asked", "the state is not sent in clear")

	answered := func(c *registry.Call, state string) *registry.Call {
		c.SentState = state
		c.InputAnswers = map[string]registry.InputAnswer{"name": {Kind: registry.InputForm, Action: "accept", Values: map[string]any{"name": "Ada"}}}
		return c
	}
	ok := answered(call("u1", "x"), asked.State)
	require.NoError(t, ch.Run(context.Background(), ok))
	require.Equal(t, "hello Ada", ok.Output)

	body, sum, _ := strings.Cut(asked.State, ".")
	flipped := []byte(body)
	flipped[len(flipped)-1] ^= 1
	for _, tt := range []struct {
		name  string
		call  *registry.Call
		state string
		late  bool
	}{
		{name: "altered", call: call("u1", "x"), state: asked.State + "-TAMPERED"},
		{name: "its body altered", call: call("u1", "x"), state: string(flipped) + "." + sum},
		{name: "not sealed", call: call("u1", "x"), state: "asked"},
		{name: "another caller", call: call("u2", "x"), state: asked.State},
		{name: "other arguments", call: call("u1", "y"), state: asked.State},
		{name: "expired", call: call("u1", "x"), state: asked.State, late: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ch := ch
			if tt.late {
				late := seal
				late.Now = func() time.Time { return now.Add(guards.InputStateTTL + time.Second) }
				ch = base.WithInputSeal(late)
			}
			c := answered(tt.call, tt.state)
			err := ch.Run(context.Background(), c)
			require.ErrorIs(t, err, registry.ErrInputState)
			require.False(t, c.Handling, "refused before the handler runs")
			require.Nil(t, c.Output)
		})
	}

	t.Run("a face that cannot ask refuses it by name", func(t *testing.T) {
		e := registry.AsError(err)
		require.Equal(t, registry.KindConflict, e.Kind)
		require.Equal(t, "input_required", e.Code)
		require.Contains(t, e.Detail, "name")
	})
	t.Run("without a seal the handler's asking fails", func(t *testing.T) {
		err := base.Run(context.Background(), call("u1", "x"))
		require.Equal(t, registry.KindInternal, registry.AsError(err).Kind)
		require.False(t, errors.As(err, &asked))
	})
}
