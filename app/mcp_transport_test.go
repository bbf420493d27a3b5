package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/tools"
)

// TestMCPEndpointIsStateless: /mcp keeps nothing between requests and
// says so on the wire, at both revisions.
func TestMCPEndpointIsStateless(t *testing.T) {
	t.Parallel()
	a := start(t, newProduct(), nil, func(_ testing.TB, c *config.Config) { c.AllowedOrigins = "https://app.example.com" })
	tok := a.Token(t, "stateless@example.com")
	accept := []string{"Accept", "application/json, text/event-stream"}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	list := func(id int) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/list"}
	}
	batch := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = list(i + 1)
		}
		return out
	}
	tests := []struct {
		name    string
		method  string
		body    any
		headers []string
		want    int
		says    string
	}{
		{"initialize gives no session", http.MethodPost, initialize, nil, http.StatusOK, `"protocolVersion":"2025-11-25"`},
		{"a session id sent is ignored", http.MethodPost, list(2), []string{"Mcp-Session-Id", "made-up", "Mcp-Protocol-Version", "2025-11-25"}, http.StatusOK, `"tools"`},
		{"Last-Event-ID on a POST is ignored", http.MethodPost, list(3), []string{"Last-Event-ID", "s_1", "Mcp-Protocol-Version", "2025-11-25"}, http.StatusOK, `"tools"`},
		{"GET has no stream", http.MethodGet, nil, nil, http.StatusMethodNotAllowed, ""},
		{"DELETE has no session to end", http.MethodDelete, nil, []string{"Mcp-Session-Id", "made-up"}, http.StatusMethodNotAllowed, ""},
		{"a batch within the bound", http.MethodPost, batch(tools.MaxBatch), []string{"Mcp-Protocol-Version", "2025-03-26"}, http.StatusOK, `"tools"`},
		{"a batch past the bound is refused by name", http.MethodPost, batch(tools.MaxBatch + 1), []string{"Mcp-Protocol-Version", "2025-03-26"},
			http.StatusBadRequest, fmt.Sprintf("at most %d messages (MaxBatch)", tools.MaxBatch)},
		{"2026-07-28 without the method header", http.MethodPost,
			map[string]any{"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": map[string]any{"_meta": meta()}},
			[]string{"Mcp-Protocol-Version", tools.Revision20260728}, http.StatusBadRequest, `-32020`},
		{"2026-07-28 at an unknown version", http.MethodPost,
			map[string]any{"jsonrpc": "2.0", "id": 5, "method": "server/discover", "params": map[string]any{"_meta": map[string]any{
				"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": map[string]any{}}}},
			[]string{"Mcp-Protocol-Version", "2099-01-01", "Mcp-Method", "server/discover"}, http.StatusBadRequest, `"supported":["2026-07-28"`},
		{"a task named in the body but not in Mcp-Name", http.MethodPost,
			map[string]any{"jsonrpc": "2.0", "id": 6, "method": "tasks/get", "params": map[string]any{"taskId": "t1", "_meta": meta()}},
			[]string{"Mcp-Protocol-Version", tools.Revision20260728, "Mcp-Method", "tasks/get"}, http.StatusBadRequest, `-32020`},
		{"server/discover", http.MethodPost,
			map[string]any{"jsonrpc": "2.0", "id": 7, "method": "server/discover", "params": map[string]any{"_meta": meta()}},
			[]string{"Mcp-Protocol-Version", tools.Revision20260728, "Mcp-Method", "server/discover"}, http.StatusOK, `"io.modelcontextprotocol/tasks"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Do(t, tt.method, "/mcp", tok, tt.body, append(accept, tt.headers...)...)
			require.Equal(t, tt.want, res.Status, string(res.Body))
			require.Empty(t, res.Header.Get("Mcp-Session-Id"), "no session is ever made")
			require.Contains(t, string(res.Body), tt.says)
		})
	}

	t.Run("tools/list is private to the token", func(t *testing.T) {
		res := a.Do(t, http.MethodPost, "/mcp", tok, map[string]any{"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": map[string]any{"_meta": meta()}},
			append(accept, "Mcp-Protocol-Version", tools.Revision20260728, "Mcp-Method", "tools/list")...)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		var msg struct {
			Result struct {
				TTLMs      int    `json:"ttlMs"`
				CacheScope string `json:"cacheScope"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(eventData(string(res.Body))), &msg))
		require.Equal(t, "private", msg.Result.CacheScope)
		require.Equal(t, tools.ToolsTTLMs, msg.Result.TTLMs)
	})

	t.Run("a page of an allowed origin may send every MCP header", func(t *testing.T) {
		res := a.Do(t, http.MethodOptions, "/mcp", "", nil, "Origin", "https://app.example.com",
			"Access-Control-Request-Method", "POST",
			"Access-Control-Request-Headers", "authorization, content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region")
		require.Equal(t, http.StatusNoContent, res.Status)
		allowed := strings.ToLower(res.Header.Get("Access-Control-Allow-Headers"))
		for _, h := range []string{"mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name", "mcp-param-region", "last-event-id", "authorization"} {
			require.Contains(t, allowed, h)
		}
		require.Contains(t, res.Header.Get("Access-Control-Allow-Methods"), "PUT")
	})
}

func meta() map[string]any {
	return map[string]any{"io.modelcontextprotocol/protocolVersion": tools.Revision20260728,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{}}
}

// eventData is the data of an event stream's last message, or the body.
func eventData(body string) string {
	out := body
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = d
		}
	}
	return out
}
