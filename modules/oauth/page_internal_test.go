package oauth

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestAnAuthorizationPageIsNeverFramed: the pages the authorization
// endpoint writes itself refuse framing by both the policy and the older
// header, as every page of the HTTP face does.
func TestAnAuthorizationPageIsNeverFramed(t *testing.T) {
	w := httptest.NewRecorder()
	page(w, http.StatusBadRequest, "Cannot connect", "The request names no client.")
	if got := w.Header().Get("X-Frame-Options"); got != "DENY" {
		t.Fatalf("X-Frame-Options = %q, want DENY", got)
	}
	if got := w.Header().Get("Content-Security-Policy"); got != strictPolicy {
		t.Fatalf("Content-Security-Policy = %q, want %q", got, strictPolicy)
	}
}
