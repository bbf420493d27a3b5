package planner_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/registry"
)

// TestBodyLimitIsTheSameOnBothFaces: a body over max_body is refused with
// the same 413 problem on an HTTP operation and on /mcp, before anything
// reads it; one just under the limit reaches the guards on both.
func TestBodyLimitIsTheSameOnBothFaces(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	tok := a.Token(t, "large@example.com")
	limit := int(a.Config.MaxBody)
	big := `{"title":"` + strings.Repeat("x", limit) + `"}`
	tests := []struct {
		face, method, path string
		headers            []string
	}{
		{"http", http.MethodPost, "/trips", []string{"Idempotency-Key", "large-body-key-0001"}},
		{"mcp", http.MethodPost, "/mcp", []string{"Accept", "application/json, text/event-stream"}},
	}
	var bodies []string
	for _, tt := range tests {
		// One request id for both, so the bodies may be compared whole.
		res := a.Do(t, tt.method, tt.path, tok, big, append(tt.headers, "X-Request-Id", "body-limit")...)
		require.Equal(t, http.StatusRequestEntityTooLarge, res.Status, "%s: %s", tt.face, res.Body)
		p := res.JSON(t)
		require.Equal(t, registry.ProblemTypeBase+registry.KindTooLarge.String(), p["type"], tt.face)
		bodies = append(bodies, string(res.Body))
	}
	require.Equal(t, bodies[0], bodies[1], "the same refusal on both faces")

	// Just under the limit, the MCP endpoint reads the request: a JSON-RPC
	// answer, not a 413.
	pad := strings.Repeat(" ", limit-200)
	res := a.Do(t, http.MethodPost, "/mcp", tok, `{"jsonrpc":"2.0","id":1,"method":"ping"`+pad+`}`, "Accept", "application/json, text/event-stream")
	require.NotEqual(t, http.StatusRequestEntityTooLarge, res.Status, string(res.Body))
}
