package guards_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// confirmations is a ConfirmationStore in memory: one token per issue, each
// usable once for the digest it was issued for.
type confirmations struct{ issued map[string]string }

func (s *confirmations) Issue(_ context.Context, _, opID, digest string, _ time.Duration) (string, time.Time, error) {
	tok := "t" + string(rune('a'+len(s.issued)))
	s.issued[tok] = opID + " " + digest
	return tok, time.Now().Add(time.Minute), nil
}

func (s *confirmations) Consume(_ context.Context, tok, _, opID, digest string) error {
	if s.issued[tok] != opID+" "+digest {
		return guards.ErrTokenRefused
	}
	delete(s.issued, tok)
	return nil
}

// TestConfirmAsksOnlyWhatTheDeclarationSays: ConfirmWith asks for every
// call; ConfirmWhenLoses goes ahead when the impact loses nothing and asks
// when it loses something; a token still acts once.
func TestConfirmAsksOnlyWhatTheDeclarationSays(t *testing.T) {
	t.Parallel()
	impact := func(loses ...string) func(context.Context, *registry.Call) (registry.Impact, error) {
		return func(context.Context, *registry.Call) (registry.Impact, error) {
			return registry.Impact{Summary: "changes things", Loses: loses}, nil
		}
	}
	tests := []struct {
		name    string
		confirm registry.Confirmation
		asks    bool
	}{
		{"always, losing nothing", registry.ConfirmWith(impact()), true},
		{"always, losing something", registry.ConfirmWith(impact("the chosen accommodations")), true},
		{"when it loses, losing nothing", registry.ConfirmWhenLoses(impact()), false},
		{"when it loses, losing something", registry.ConfirmWhenLoses(impact("the lock")), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.True(t, tt.confirm.Declared())
			require.True(t, tt.confirm.Asks(), "the guard applies by declaration, whatever the impact")
			op := &registry.Operation{ID: "x.update", HTTP: registry.Patch("/x/{id}", 200), Confirm: tt.confirm}
			g := guards.Confirm{Store: &confirmations{issued: map[string]string{}}}
			newCall := func(tok string) *registry.Call {
				return &registry.Call{Op: op, Principal: &registry.Principal{UserID: "u"},
					Args: map[string]json.RawMessage{"title": json.RawMessage(`"x"`)}, ConfirmationToken: tok}
			}
			acted := 0
			next := func(context.Context, *registry.Call) error { acted++; return nil }

			c := newCall("")
			require.NoError(t, g.Check(context.Background(), c, next))
			if !tt.asks {
				require.Equal(t, 1, acted, "an impact that loses nothing goes ahead")
				require.Nil(t, c.Confirmation)
				return
			}
			require.Zero(t, acted, "nothing acts before the confirmation")
			require.NotNil(t, c.Confirmation)
			require.NoError(t, g.Check(context.Background(), newCall(c.Confirmation.Token), next))
			require.Equal(t, 1, acted, "the token acts")
			err := g.Check(context.Background(), newCall(c.Confirmation.Token), next)
			require.Equal(t, "confirmation_refused", registry.AsError(err).Code, "once")
		})
	}
}
