package fetch_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/fetch"
	"cairn.dev/cairn/outbound"
)

// TestRouteLimits: a route client takes a body larger than outbound's
// default cap (a long route's GPX) up to its own, says it imports routes,
// and keeps a User-Agent its caller chose; what it refuses is outbound's.
func TestRouteLimits(t *testing.T) {
	t.Parallel()
	size := outbound.DefaultMaxBytes + 1
	var agent string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agent = r.Header.Get("User-Agent")
		if r.URL.Path == "/huge" {
			size = fetch.MaxBytes + 1
		}
		_, _ = w.Write([]byte(strings.Repeat("x", size)))
	}))
	t.Cleanup(srv.Close)
	local := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	ctx := context.Background()

	tests := []struct {
		name      string
		opts      outbound.Options
		path      string
		wantAgent string
		wantErr   error
	}{
		{name: "over outbound's default, within the route cap", opts: outbound.Options{AllowHTTP: true, Allow: local}, path: "/", wantAgent: fetch.UserAgent},
		{name: "over the route cap", opts: outbound.Options{AllowHTTP: true, Allow: local}, path: "/huge", wantAgent: fetch.UserAgent, wantErr: outbound.ErrTooLarge},
		{name: "the caller's agent", opts: outbound.Options{AllowHTTP: true, Allow: local, Header: http.Header{"User-Agent": {"mine"}}}, path: "/", wantAgent: "mine"},
		{name: "the address rules are outbound's", opts: outbound.Options{AllowHTTP: true}, path: "/", wantErr: outbound.ErrForbiddenAddress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent, size = "", outbound.DefaultMaxBytes+1
			res, err := fetch.New(tt.opts).Get(ctx, srv.URL+tt.path)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
				require.Len(t, res.Body, outbound.DefaultMaxBytes+1)
			}
			require.Equal(t, tt.wantAgent, agent)
		})
	}
}
