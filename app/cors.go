package app

import (
	"net/http"
	"slices"
	"strings"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
)

// CORS headers: what a browser page of an allowed origin may send, and the
// answer headers its script may read (the rest it cannot see at all). The
// MCP headers are those of both revisions: 2025-11-25's session and
// protocol version, 2026-07-28's method and name (and any Mcp-Param-*
// header a tool's schema mirrors, allowed as the preflight names it).
var (
	corsAllowHeaders = strings.Join([]string{
		"Authorization", "Content-Type", "Accept", "If-Match", "If-None-Match",
		operations.HeaderIdempotencyKey, operations.HeaderConfirmationToken, "Last-Event-ID", registry.HeaderRequestID,
		"Mcp-Protocol-Version", "Mcp-Session-Id", "Mcp-Method", "Mcp-Name",
	}, ", ")
	corsExposeHeaders = strings.Join([]string{
		"ETag", "Location", operations.HeaderConfirmationToken, "Retry-After",
		operations.HeaderRateLimitPolicy, operations.HeaderRateLimit, operations.HeaderIdempotentReplayed,
		registry.HeaderRequestID, "WWW-Authenticate", "Mcp-Session-Id", "Mcp-Protocol-Version",
	}, ", ")
	corsAllowMethods = "GET, POST, PUT, PATCH, DELETE"
)

// mcpParamHeaders are the Mcp-Param-* headers a preflight asks for.
func mcpParamHeaders(requested string) []string {
	var out []string
	for _, h := range strings.Split(requested, ",") {
		if h = strings.TrimSpace(h); strings.HasPrefix(strings.ToLower(h), "mcp-param-") {
			out = append(out, h)
		}
	}
	return out
}

// withCORS lets pages of the configured allowed_origins call the API from a
// browser (empty by default: no page elsewhere may). A preflight from such
// an origin is answered here; any other request goes on with the CORS
// headers added. Credentials are bearer tokens, never cookies, so
// Access-Control-Allow-Credentials is not sent.
func withCORS(allowed []string, next http.Handler) http.Handler {
	if len(allowed) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin, ok := config.Origin(r.Header.Get("Origin"))
		if !ok || !slices.Contains(allowed, origin) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			h.Set("Access-Control-Allow-Headers", strings.Join(append([]string{corsAllowHeaders},
				mcpParamHeaders(r.Header.Get("Access-Control-Request-Headers"))...), ", "))
			h.Set("Access-Control-Max-Age", "600")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		next.ServeHTTP(w, r)
	})
}
