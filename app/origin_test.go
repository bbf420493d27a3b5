package app_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/operations"
)

// TestMCPRefusesForeignOrigins: /mcp refuses, before anything else, a
// request from a page whose origin is neither the server's own nor
// configured, "null" included; a request without Origin is not from a
// browser and is served.
func TestMCPRefusesForeignOrigins(t *testing.T) {
	t.Parallel()
	a := start(t, newProduct(), nil, func(_ testing.TB, c *config.Config) {
		c.AllowedOrigins = "https://app.example.com, http://localhost:5173"
	})
	tok := a.Token(t, "origin@example.com")
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	tests := []struct {
		name, origin string
		token        string
		want         int
	}{
		{"a foreign origin", "http://evil.example", tok, http.StatusForbidden},
		{"an opaque origin", "null", tok, http.StatusForbidden},
		{"a foreign origin without a token", "http://evil.example", "", http.StatusForbidden},
		{"the server's own origin", a.URL, tok, http.StatusOK},
		{"the server's own origin, in capitals", strings.ToUpper(a.URL), tok, http.StatusOK},
		{"a configured origin", "https://app.example.com", tok, http.StatusOK},
		{"another configured origin", "http://localhost:5173", tok, http.StatusOK},
		{"a configured host on another port", "https://app.example.com:8443", tok, http.StatusForbidden},
		{"no origin: not a browser", "", tok, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := []string{"Accept", "application/json, text/event-stream"}
			if tt.origin != "" {
				headers = append(headers, "Origin", tt.origin)
			}
			res := a.Do(t, http.MethodPost, "/mcp", tt.token, initialize, headers...)
			require.Equal(t, tt.want, res.Status, string(res.Body))
			if tt.want == http.StatusForbidden {
				require.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))
				require.Equal(t, operations.OriginNotAllowedType, res.JSON(t)["type"])
			}
		})
	}
}
