package app_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/registry"
)

// TestReplayOfACommittedCreationSpendsNoQuota: once a user's quota is
// spent, a retry of a creation that committed still answers its record,
// as often as it is sent, on both faces and with a derived key on MCP; a
// new creation, or the key reused with other arguments, is still refused.
func TestReplayOfACommittedCreationSpendsNoQuota(t *testing.T) {
	t.Parallel()
	for _, limiter := range []struct {
		name string
		opts []apptest.Option
	}{
		{"in process", nil},
		{"redis", []apptest.Option{apptest.Redis}},
	} {
		t.Run(limiter.name, func(t *testing.T) {
			t.Parallel()
			a := start(t, newProduct(), nil, limiter.opts...)
			rateLimited := registry.ProblemTypeBase + registry.KindRateLimited.String()
			key := func(i int) []string { return []string{"Idempotency-Key", fmt.Sprintf("replay-quota-key-%04d", i)} }

			t.Run("http", func(t *testing.T) {
				tok := a.Token(t, "replay-http@example.com")
				var first map[string]any
				for i := range quota {
					res := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": fmt.Sprint("n", i)}, key(i)...)
					require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
					if i == 0 {
						first = res.JSON(t)
					}
				}
				over := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "over"}, key(quota)...)
				require.Equal(t, http.StatusTooManyRequests, over.Status, "the quota is spent: %s", over.Body)

				for range 2 * quota {
					again := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "n0"}, key(0)...)
					require.Equal(t, http.StatusCreated, again.Status, "a replay is answered: %s", again.Body)
					require.Equal(t, first["id"], again.JSON(t)["id"])
				}
				other := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "other"}, key(0)...)
				require.Equal(t, http.StatusTooManyRequests, other.Status, "the key with other arguments is no replay: %s", other.Body)
				require.Equal(t, rateLimited, other.JSON(t)["type"])

				s := a.MCP(t, tok)
				viaMCP := apptest.Call(t, s, "create_thing", map[string]any{"name": "n0", "idempotencyKey": "replay-quota-key-0000"})
				require.False(t, viaMCP.IsError, "the same key replays on MCP: %s", viaMCP.Text)
				require.Equal(t, first["id"], viaMCP.Structured["id"])
			})

			t.Run("mcp derived keys", func(t *testing.T) {
				s := a.MCP(t, a.Token(t, "replay-mcp@example.com"))
				var first map[string]any
				for i := range quota {
					res := apptest.Call(t, s, "create_thing", map[string]any{"name": fmt.Sprint("d", i)})
					require.False(t, res.IsError, res.Text)
					if i == 0 {
						first = res.Structured
					}
				}
				over := apptest.Call(t, s, "create_thing", map[string]any{"name": "over"})
				require.True(t, over.IsError)
				require.Equal(t, rateLimited, over.Structured["type"], over.Text)

				for range 2 * quota {
					again := apptest.Call(t, s, "create_thing", map[string]any{"name": "d0"})
					require.False(t, again.IsError, "identical arguments within five minutes replay: %s", again.Text)
					require.Equal(t, first["id"], again.Structured["id"])
				}
			})
		})
	}
}
