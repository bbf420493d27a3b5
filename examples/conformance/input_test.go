package conformance_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/examples/conformance"
)

// TestAskingWhereNoneCanBeAsked: a tool that asks its caller's model is
// answered, over MCP at a revision without multi round-trip requests and
// over HTTP, with the refusal of a face that cannot ask (409
// input_required, a tool error on MCP), never a request the client cannot
// see; the same tool asked by a 2026-07-28 client that declared sampling
// gets the completion it needs and answers with it.
func TestAskingWhereNoneCanBeAsked(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, conformance.Product())
	tok := a.Token(t, "asker@example.com")

	call := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "test_missing_capability", "arguments": map[string]any{}}}
	res := a.Do(t, http.MethodPost, "/mcp", tok, call, "Accept", "application/json, text/event-stream",
		"MCP-Protocol-Version", "2025-11-25")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	var body map[string]any
	for _, line := range strings.Split(string(res.Body), "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			require.NoError(t, json.Unmarshal([]byte(data), &body))
		}
	}
	result := body["result"].(map[string]any)
	require.Equal(t, true, result["isError"], "a tool error, not an input request: %v", result)
	require.NotContains(t, result, "inputRequests")
	problem := result["structuredContent"].(map[string]any)
	require.Equal(t, "input_required", problem["code"])
	require.Equal(t, float64(http.StatusConflict), problem["status"])

	session := a.MCP(t, tok)
	out := apptest.Call(t, session, "test_missing_capability", map[string]any{})
	require.False(t, out.IsError)
	require.Contains(t, out.Text, apptest.SampledText, "the client's model was asked, and its words reached the handler")
}

// TestATaskOnlyToolIsListedWhereItCanBeCalled: failing_job, served only as a
// task, is listed to a 2026-07-28 client that declared the tasks extension
// and to a 2025-11-25 one (which it answers at once), never to a
// 2026-07-28 client without the extension, which it would refuse.
func TestATaskOnlyToolIsListedWhereItCanBeCalled(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, conformance.Product())
	tok := a.Token(t, "lister@example.com")
	listed := func(s *mcp.ClientSession) bool {
		res, err := s.ListTools(context.Background(), nil)
		require.NoError(t, err)
		for _, tool := range res.Tools {
			if tool.Name == "failing_job" {
				return true
			}
		}
		return false
	}
	require.False(t, listed(a.MCP(t, tok)), "without the tasks extension")
	require.True(t, listed(a.MCP(t, tok, apptest.WithTasks)), "with the tasks extension")
	require.True(t, listed(a.LegacyMCP(t, tok)), "at 2025-11-25")
}
