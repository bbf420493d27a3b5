package tools_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/tools"
)

// TestSpeakLanguage: a tool call's answer names the language negotiated
// from Accept-Language; the listings are in the default language, their
// descriptions not being translated.
func TestSpeakLanguage(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.SpeakLocales("en", "fr")
	h := tools.SpeakLanguage(reg, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	tests := []struct {
		method, accept, want string
	}{
		{"tools/call", "fr-CA, en;q=0.5", "fr"},
		{"tools/call", "", "en"},
		{"tools/list", "fr", "en"},
		{"", "fr", ""},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if tt.method != "" {
			req.Header.Set("Mcp-Method", tt.method)
		}
		req.Header.Set("Accept-Language", tt.accept)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, tt.want, rec.Header().Get("Content-Language"), "%s %s", tt.method, tt.accept)
	}
}
