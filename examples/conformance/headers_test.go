package conformance_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/examples/conformance"
	"cairn.dev/cairn/tools"
)

// TestMirroredArgumentsAreChecked: a tool mirroring arguments in headers
// lists each one's header in its schema, and the endpoint refuses a
// 2026-07-28 call whose header is missing, malformed or disagrees with
// the argument (400, -32020), while one that agrees, plainly or in Base64,
// reaches the guards and is answered.
func TestMirroredArgumentsAreChecked(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, conformance.Product())
	tok := a.Token(t, "headers@example.com")

	list, err := a.MCP(t, tok).ListTools(context.Background(), nil)
	require.NoError(t, err)
	var schema string
	for _, tl := range list.Tools {
		if tl.Name == "test_custom_headers" {
			raw, _ := tl.InputSchema.(map[string]any)
			props, _ := raw["properties"].(map[string]any)
			require.Equal(t, "Region", props["region"].(map[string]any)[tools.HeaderAnnotation])
			require.Equal(t, "Priority", props["priority"].(map[string]any)[tools.HeaderAnnotation])
			require.NotContains(t, props["query"], tools.HeaderAnnotation)
			schema = "listed"
		}
	}
	require.Equal(t, "listed", schema, "test_custom_headers is listed")

	call := func(region string, headers ...string) (int, string) {
		body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{
			"name": "test_custom_headers", "arguments": map[string]any{"region": region},
			"_meta": map[string]any{mcp.MetaKeyProtocolVersion: tools.Revision20260728,
				mcp.MetaKeyClientCapabilities: map[string]any{}, mcp.MetaKeyClientInfo: map[string]any{"name": "t", "version": "1"}},
		}}
		hs := append([]string{"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", tools.Revision20260728,
			"Mcp-Method", "tools/call", "Mcp-Name", "test_custom_headers"}, headers...)
		res := a.Do(t, http.MethodPost, "/mcp", tok, body, hs...)
		return res.Status, string(res.Body)
	}
	status, body := call("eu-west", "Mcp-Param-Region", "eu-west")
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, "region eu-west")
	status, body = call("Hello", "Mcp-Param-Region", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("Hello"))+"?=")
	require.Equal(t, http.StatusOK, status, body)
	for name, h := range map[string][]string{
		"missing":     nil,
		"other value": {"Mcp-Param-Region", "us-east"},
		"bad Base64":  {"Mcp-Param-Region", "=?base64?SGVsbG8?="},
	} {
		status, body := call("Hello", h...)
		require.Equal(t, http.StatusBadRequest, status, "%s: %s", name, body)
		require.True(t, strings.Contains(body, "-32020"), "%s: %s", name, body)
	}
}
