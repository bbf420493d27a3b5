package source_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/source"
	"cairn.dev/cairn/outbound"
)

// TestFetchStaysOnTheProviderOrigin checks that a provider's redirect is
// followed only within the origin of its base URL: scheme, host and port.
// The other server answers a valid route on the same loopback address,
// which the test's address policy allows, so only the origin lock stands
// between the redirect and a route served by someone else.
func TestFetchStaysOnTheProviderOrigin(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		location string // {other}: the other server's port, {self}: the provider's
		hop      string // where /hop redirects, for two-hop chains
	}{
		{name: "another port", location: "http://127.0.0.1:{other}/routes/7.json"},
		{name: "another port, the server's health", location: "http://127.0.0.1:{other}/health"},
		{name: "scheme-relative", location: "//127.0.0.1:{other}/routes/7.json"},
		{name: "https upgrade", location: "https://127.0.0.1:{self}/routes/8.json"},
		{name: "https upgrade to another port", location: "https://127.0.0.1:{other}/routes/7.json"},
		{name: "two hops ending on another port", location: "/hop", hop: "http://127.0.0.1:{other}/routes/7.json"},
		{name: "two hops, scheme-relative", location: "/hop", hop: "//127.0.0.1:{other}/routes/7.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var strayed atomic.Int32
			route := rwgpsJSON(t, "Elsewhere", trackB)
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				strayed.Add(1)
				w.Write([]byte(route))
			}))
			t.Cleanup(other.Close)
			f, p := setup(t, source.Options{})
			self := strings.TrimPrefix(p.url, "http://127.0.0.1:")
			r := strings.NewReplacer("{other}", strings.TrimPrefix(other.URL, "http://127.0.0.1:"), "{self}", self)
			p.set("/routes/7.json", answer{status: http.StatusFound, location: r.Replace(tt.location)})
			p.set("/routes/8.json", answer{body: route})
			if tt.hop != "" {
				p.set("/hop", answer{status: http.StatusFound, location: r.Replace(tt.hop)})
			}

			_, err := f.Fetch(context.Background(), "https://ridewithgps.com/routes/7")

			require.ErrorIs(t, err, source.ErrFetchFailed)
			require.ErrorIs(t, err, outbound.ErrRedirect)
			require.ErrorIs(t, err, outbound.ErrHostNotAllowed)
			assert.Zero(t, strayed.Load(), "the redirect left the provider's origin")
			assert.Equal(t, 1, p.hitsOf("/routes/7.json"), "a refused redirect is final: no retry")
			assert.Zero(t, p.hitsOf("/routes/8.json"))
		})
	}
}
