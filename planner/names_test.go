package planner_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/config"
)

// metadataAt reads the MCP endpoint's resource metadata from base, sent
// with the Host header host.
func metadataAt(t *testing.T, base, host string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/.well-known/oauth-protected-resource/mcp", nil)
	require.NoError(t, err)
	req.Host = host
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	var m map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&m))
	return m
}

// TestTheServerAnswersToItsNames: a client configured with localhost for a
// server listening on 127.0.0.1, or with a declared alias, reads resource
// metadata naming the resource as it does, is challenged with metadata
// under that name, and its token, bound to that name's /mcp, is accepted;
// an undeclared name gets the server's own URL.
func TestTheServerAnswersToItsNames(t *testing.T) {
	alias := func(_ testing.TB, c *config.Config) { c.PublicAliases = "https://cairn.example" }
	a, b := signedIn(t, alias)
	u, err := url.Parse(a.URL)
	require.NoError(t, err)
	local := "http://localhost:" + u.Port()

	for _, tc := range []struct{ host, resource string }{
		{"localhost:" + u.Port(), local + "/mcp"},
		{"cairn.example", "https://cairn.example/mcp"},
		{u.Host, a.URL + "/mcp"},
		{"elsewhere.example", a.URL + "/mcp"},
	} {
		require.Equal(t, tc.resource, metadataAt(t, a.URL, tc.host)["resource"], "metadata asked as %s", tc.host)
	}

	req, err := http.NewRequest(http.MethodPost, a.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	require.NoError(t, err)
	req.Host = "localhost:" + u.Port()
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	require.Contains(t, res.Header.Get("WWW-Authenticate"), `resource_metadata="`+local+`/.well-known/oauth-protected-resource/mcp"`)

	redirect := "http://127.0.0.1:5009/cb"
	c := &oauthClient{t: t, a: a, b: b, id: register(t, a, redirect), redirect: redirect,
		verifier: strings.Repeat("l", 50), scope: "trips:read", resource: local + "/mcp"}
	status, body := c.exchange(c.code())
	require.Equal(t, http.StatusOK, status, body)
	st, _ := mcpStatus(t, a, body["access_token"].(string), "list_trips")
	require.Equal(t, http.StatusOK, st, "a token bound to localhost's /mcp is good at /mcp")
}
