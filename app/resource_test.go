package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/registry"
)

// TestMCPChallenges: /mcp refuses before any session with a bearer
// challenge that names its protected resource metadata (RFC 9728 §5.1),
// says invalid_token only when a token was sent, names the scopes the
// tools need, refuses a token issued for another resource, and answers a
// tools/call whose scope the token lacks with 403 insufficient_scope.
func TestMCPChallenges(t *testing.T) {
	t.Parallel()
	p := newProduct()
	a := start(t, p, nil)
	meta := `resource_metadata="` + a.URL + app.MCPMetadataPath + `"`
	good := a.Token(t, "good@example.com")
	weak, err := p.tokens.IssueToken(context.Background(), "weak@example.com", nil)
	require.NoError(t, err)
	elsewhere, err := p.tokens.IssueToken(context.Background(), "elsewhere@example.com", []registry.Scope{scopeThings})
	require.NoError(t, err)
	bound, err := p.tokens.IssueToken(context.Background(), "bound@example.com", []registry.Scope{scopeThings})
	require.NoError(t, err)
	p.tokens.mu.Lock()
	e := p.tokens.tokens[elsewhere]
	e.Resource = "https://other.example/mcp"
	p.tokens.tokens[elsewhere] = e
	b := p.tokens.tokens[bound]
	b.Resource = a.URL + "/mcp"
	p.tokens.tokens[bound] = b
	p.tokens.mu.Unlock()

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_thing","arguments":{"name":"x"}}}`
	tests := []struct {
		name, token, body string
		status            int
		challenge         string
	}{
		{"no token", "", initialize, http.StatusUnauthorized, `Bearer realm="cairn", ` + meta + `, scope="things"`},
		{"an unknown token", "nope", initialize, http.StatusUnauthorized, `Bearer realm="cairn", ` + meta + `, error="invalid_token", scope="things"`},
		{"a token for another resource", elsewhere, initialize, http.StatusUnauthorized, `Bearer realm="cairn", ` + meta + `, error="invalid_token", scope="things"`},
		{"a token without the tool's scope", weak, call, http.StatusForbidden, `Bearer realm="cairn", ` + meta + `, error="insufficient_scope", scope="things"`},
		{"a token without scopes may still start a session", weak, initialize, http.StatusOK, ""},
		{"a token for this endpoint", bound, initialize, http.StatusOK, ""},
		{"a personal token", good, initialize, http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Do(t, http.MethodPost, "/mcp", tt.token, tt.body, "Accept", "application/json, text/event-stream")
			require.Equal(t, tt.status, res.Status, string(res.Body))
			require.Equal(t, tt.challenge, res.Header.Get("WWW-Authenticate"))
			if tt.status == http.StatusForbidden {
				require.Equal(t, "things", res.JSON(t)["scope"])
			}
		})
	}

	t.Run("the HTTP API names the server's metadata", func(t *testing.T) {
		res := a.Do(t, http.MethodPost, "/things", "nope", map[string]any{"name": "x"})
		require.Equal(t, http.StatusUnauthorized, res.Status)
		require.Equal(t, `Bearer realm="cairn", resource_metadata="`+a.URL+app.MetadataPath+`", error="invalid_token"`, res.Header.Get("WWW-Authenticate"))
		res = a.Do(t, http.MethodPost, "/things", weak, map[string]any{"name": "x"})
		require.Equal(t, http.StatusForbidden, res.Status)
		require.Equal(t, `Bearer realm="cairn", resource_metadata="`+a.URL+app.MetadataPath+`", error="insufficient_scope", scope="things"`, res.Header.Get("WWW-Authenticate"))
	})
}

// TestProtectedResourceMetadata: both documents name their resource, the
// scopes and the header as the one way to send a token; without an
// authorization server of its own, the product names none.
func TestProtectedResourceMetadata(t *testing.T) {
	t.Parallel()
	for _, own := range []bool{false, true} {
		p := newProduct()
		p.OwnAuthorizationServer = own
		a := start(t, p, nil)
		for path, resource := range map[string]string{app.MetadataPath: a.URL, app.MCPMetadataPath: a.URL + "/mcp"} {
			res := a.Do(t, http.MethodGet, path, "", nil)
			require.Equal(t, http.StatusOK, res.Status, path)
			var m oauthex.ProtectedResourceMetadata
			require.NoError(t, json.Unmarshal(res.Body, &m), path)
			require.Equal(t, resource, m.Resource, path)
			require.Equal(t, []string{"things"}, m.ScopesSupported, path)
			require.Equal(t, []string{"header"}, m.BearerMethodsSupported, path)
			if own {
				require.Equal(t, []string{a.URL}, m.AuthorizationServers, path)
			} else {
				require.Empty(t, m.AuthorizationServers, path)
			}
		}
	}
}
