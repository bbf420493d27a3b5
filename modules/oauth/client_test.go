package oauth

import "testing"

// TestRedirectMatching: a redirect URI matches a registered one exactly,
// except for the port of a loopback one (RFC 8252 §7.3).
func TestRedirectMatching(t *testing.T) {
	c := &client{RedirectURIs: "http://127.0.0.1:8080/cb\nhttps://app.example.com/oauth/cb\nhttp://localhost/done?x=1"}
	tests := []struct {
		uri  string
		want bool
	}{
		{"https://app.example.com/oauth/cb", true},
		{"https://app.example.com/oauth/cb/", false},
		{"https://app.example.com:8443/oauth/cb", false},
		{"https://APP.example.com/oauth/cb", false},
		{"https://app.example.com/oauth/cb?extra=1", false},
		{"http://127.0.0.1:8080/cb", true},
		{"http://127.0.0.1:51234/cb", true},
		{"http://127.0.0.1/cb", true},
		{"http://127.0.0.1:51234/other", false},
		{"http://127.0.0.2:8080/cb", false},
		{"https://127.0.0.1:8080/cb", false},
		{"http://localhost:8080/cb", false},
		{"http://localhost:9999/done?x=1", true},
		{"http://localhost:9999/done?x=2", false},
		{"http://user@127.0.0.1:8080/cb", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := c.redirectAllowed(tt.uri); got != tt.want {
			t.Errorf("redirectAllowed(%q) = %v, want %v", tt.uri, got, tt.want)
		}
	}
}
