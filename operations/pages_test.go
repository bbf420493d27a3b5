package operations_test

import (
	"testing"

	"cairn.dev/cairn/operations"
)

func TestPrefersHTML(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		accept string
		page   bool
	}{
		{"text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", true},
		{"text/html", true},
		{"application/xhtml+xml", true},
		{"", false},
		{"*/*", false},
		{"application/json", false},
		{"application/json, text/html", false},       // a tie keeps the JSON
		{"text/html;q=0.5, application/json", false}, // JSON weighs more
		{"application/json;q=0.1, text/html", true},
		{"text/html;q=0", false},
		{"TEXT/HTML", true},
	} {
		if got := operations.PrefersHTML(c.accept); got != c.page {
			t.Errorf("Accept %q: page %v, want %v", c.accept, got, c.page)
		}
	}
}
