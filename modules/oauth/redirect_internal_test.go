package oauth

import (
	"net/url"
	"strings"
	"testing"
)

// TestRedirectGrammar: what a client may register as a redirect URI, and
// that an accepted one gives the consent's policy a source without a
// separator.
func TestRedirectGrammar(t *testing.T) {
	for _, tc := range []struct {
		uri string
		ok  bool
	}{
		{"https://app.example/cb", true},
		{"https://app.example:8443/cb?x=1&y=a,b;c", true},
		{"http://127.0.0.1:5000/cb", true},
		{"http://[::1]:5000/cb", true},
		{"http://localhost/cb", true},
		{"cursor://anysphere.cursor-retrieval/oauth/callback", true}, // a native client's private-use scheme
		{"com.example.app:/oauth2redirect", true},                    // RFC 8252 §7.1's reverse domain name form
		{"https://app.example;script-src *;/cb", false},              // would write a directive into the policy
		{"https://app.example,evil.example/cb", false},
		{"https://app.example;frame-ancestors/cb", false},
		{"https://app.example/cb#frag", false},
		{"https://user:pw@app.example/cb", false},
		{"https://app.example/c b", false},
		{"https://app.example/\"><script>", false},
		{"https://app.example/%zz", false},
		{"https://app.example:99999/cb", false},
		{"https://-bad.example/cb", false},
		{"http://app.example/cb", false}, // plain http beyond loopback
		{"javascript:/alert(1)", false},
		{"data:/text/html,x", false},
		{"file:///etc/passwd", false},
		{"com.example.app:oauth2redirect", false}, // opaque: no path
		{"Bad_Scheme:/cb", false},
		{"https://app.example/" + strings.Repeat("a", MaxRedirectURI), false},
		{"https:///cb", false},
		{"/relative", false},
		{"javascript:alert(1)", false},
	} {
		got := redirectProblem(tc.uri)
		if (got == "") != tc.ok {
			t.Errorf("%q: problem %q, want ok=%v", tc.uri, got, tc.ok)
		}
		if got == "" {
			u, _ := url.Parse(tc.uri)
			if src := formSource(u); strings.ContainsAny(src, " ;,'\"") {
				t.Errorf("%q: policy source %q", tc.uri, src)
			}
		}
	}
}
