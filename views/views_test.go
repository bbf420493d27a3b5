package views

import (
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

// TestDocumentAllowsItsOwnScriptsAndNothingElse: the policy names the
// digest of each inline script and of the style, so a browser runs them,
// and no origin; a script changed after the fact would not run.
func TestDocumentAllowsItsOwnScriptsAndNothingElse(t *testing.T) {
	t.Parallel()
	style, script := "p{color:red}", "view.on('result', function () {});"
	doc := string(Document("fr", "A <view>", style, "<p>x</p>", script))
	m := regexp.MustCompile(`content="([^"]*)"`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("no policy in %s", doc)
	}
	csp := m[1]
	digest := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	for _, want := range []string{"default-src 'none'", "connect-src 'none'", "style-src " + digest(style),
		"script-src " + digest(bridge) + " " + digest(script)} {
		if !strings.Contains(csp, want) {
			t.Errorf("the policy lacks %q: %s", want, csp)
		}
	}
	if strings.Contains(csp, "http") || strings.Contains(csp, "*") || strings.Contains(csp, "unsafe") {
		t.Errorf("the policy names an origin or lets any script run: %s", csp)
	}
	for _, want := range []string{`<html lang="fr">`, "<title>A &lt;view&gt;</title>", "<script>" + script + "</script>"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %q", want)
		}
	}
}
