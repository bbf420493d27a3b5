package outbound_test

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/outbound"
)

// portOf is the port a test server listens on.
func portOf(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	return port
}

// hopServer redirects /start to start and /hop to hop, counting the
// requests of each path; anything else answers "ok".
type hopServer struct {
	start, hop string
	hits       map[string]*atomic.Int32
}

func newHopServer(start, hop string) *hopServer {
	return &hopServer{start: start, hop: hop, hits: map[string]*atomic.Int32{
		"/start": {}, "/hop": {}, "/ok": {},
	}}
}

func (h *hopServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n, ok := h.hits[r.URL.Path]; ok {
		n.Add(1)
	}
	switch r.URL.Path {
	case "/start":
		http.Redirect(w, r, h.start, http.StatusFound)
	case "/hop":
		http.Redirect(w, r, h.hop, http.StatusFound)
	default:
		fmt.Fprint(w, "ok")
	}
}

// TestGetRedirectKeepsTheOrigin follows a redirect only within the origin
// (scheme, host and port) of the URL Get was given. The targets are real,
// reachable servers on the same loopback address and allowed by the address
// policy, so a refusal here comes from the origin lock alone.
func TestGetRedirectKeepsTheOrigin(t *testing.T) {
	t.Parallel()

	// Locations name ports by placeholder: {plain} another plain server,
	// {tls} a TLS server, {front} the redirecting server itself.
	tests := []struct {
		name       string
		start, hop string
		wantErr    error // nil: followed, "ok" answered
		wantHop    int32 // requests the intermediate hop got
	}{
		{name: "another port", start: "http://127.0.0.1:{plain}/health", wantErr: outbound.ErrHostNotAllowed},
		{name: "scheme-relative to another port", start: "//127.0.0.1:{plain}/", wantErr: outbound.ErrHostNotAllowed},
		{name: "https upgrade to another port", start: "https://127.0.0.1:{tls}/", wantErr: outbound.ErrHostNotAllowed},
		{name: "https upgrade on the same port", start: "https://127.0.0.1:{front}/ok", wantErr: outbound.ErrHostNotAllowed},
		{name: "another name for the same address", start: "http://local.test:{front}/ok", wantErr: outbound.ErrHostNotAllowed},
		{name: "trailing dot", start: "http://127.0.0.1.:{front}/ok", wantErr: outbound.ErrHostNotAllowed},
		{name: "two hops ending on another port", start: "/hop", hop: "http://127.0.0.1:{plain}/", wantErr: outbound.ErrHostNotAllowed, wantHop: 1},
		{name: "two hops, scheme-relative", start: "/hop", hop: "//127.0.0.1:{plain}/", wantErr: outbound.ErrHostNotAllowed, wantHop: 1},
		{name: "two hops, https upgrade", start: "/hop", hop: "https://127.0.0.1:{tls}/", wantErr: outbound.ErrHostNotAllowed, wantHop: 1},
		{name: "to a scheme never fetched", start: "ftp://127.0.0.1:{front}/", wantErr: outbound.ErrScheme},
		{name: "past the limit, same origin", start: "/hop", hop: "/hop", wantErr: outbound.ErrTooManyRedirects, wantHop: 2},

		{name: "same origin, relative", start: "/ok"},
		{name: "same origin, absolute", start: "http://127.0.0.1:{front}/ok"},
		{name: "same origin, two hops", start: "/hop", hop: "http://127.0.0.1:{front}/ok", wantHop: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plain := &counter{}
			plainSrv := serve(t, "127.0.0.1:0", plain)
			secure := &counter{}
			secureSrv := httptest.NewTLSServer(secure)
			t.Cleanup(secureSrv.Close)
			front := newHopServer("", "")
			frontSrv := serve(t, "127.0.0.1:0", front)
			ports := []string{portOf(t, plainSrv), portOf(t, secureSrv), portOf(t, frontSrv)}
			r := strings.NewReplacer("{plain}", ports[0], "{tls}", ports[1], "{front}", ports[2])
			front.start, front.hop = r.Replace(tt.start), r.Replace(tt.hop)

			roots := x509.NewCertPool()
			roots.AddCert(secureSrv.Certificate())
			opts := testOptions()
			opts.RootCAs = roots
			opts.Resolver = fakeDNS{"local.test": {netip.MustParseAddr("127.0.0.1")}}

			for _, lock := range []string{"", frontSrv.URL} {
				opts.Origin = lock
				client := outbound.New(opts)
				before := front.hits["/start"].Load()

				resp, err := client.Get(context.Background(), frontSrv.URL+"/start")

				assert.Equal(t, before+1, front.hits["/start"].Load(), "a refused redirect is final: no retry")
				assert.Zero(t, plain.hits.Load(), "another port was reached")
				assert.Zero(t, secure.hits.Load(), "an https upgrade was followed")
				if tt.wantErr == nil {
					require.NoError(t, err, "origin lock %q", lock)
					assert.Equal(t, "ok", string(resp.Body))
					continue
				}
				require.ErrorIs(t, err, outbound.ErrRedirect, "origin lock %q", lock)
				require.ErrorIs(t, err, tt.wantErr, "origin lock %q", lock)
				for _, port := range ports {
					assert.NotContains(t, err.Error(), port, "the message must not echo the destination")
				}
			}
			assert.Equal(t, 2*tt.wantHop, front.hits["/hop"].Load())
		})
	}
}

// TestGetOriginLock refuses, before any connection, a first URL outside
// the client's Origin: another scheme, host name or port.
func TestGetOriginLock(t *testing.T) {
	t.Parallel()
	target := &counter{}
	targetSrv := serve(t, "127.0.0.1:0", target)
	other := &counter{}
	otherSrv := serve(t, "127.0.0.1:0", other)
	port := portOf(t, targetSrv)

	tests := []struct {
		name    string
		give    string
		wantErr error
	}{
		{name: "the origin", give: targetSrv.URL + "/routes/1"},
		{name: "the origin, scheme in upper case", give: "HTTP://127.0.0.1:" + port + "/"},
		{name: "another port", give: otherSrv.URL + "/", wantErr: outbound.ErrHostNotAllowed},
		{name: "no port: the scheme's own", give: "http://127.0.0.1/", wantErr: outbound.ErrHostNotAllowed},
		{name: "another scheme", give: "https://127.0.0.1:" + port + "/", wantErr: outbound.ErrHostNotAllowed},
		{name: "another name, same address", give: "http://local.test:" + port + "/", wantErr: outbound.ErrHostNotAllowed},
		{name: "port with a leading zero", give: "http://127.0.0.1:0" + port + "/", wantErr: outbound.ErrHostNotAllowed},
	}
	opts := testOptions()
	opts.Origin = targetSrv.URL
	opts.Resolver = fakeDNS{"local.test": {netip.MustParseAddr("127.0.0.1")}}
	client := outbound.New(opts)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := client.Get(context.Background(), tt.give)
			if tt.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.wantErr)
			assert.NotErrorIs(t, err, outbound.ErrRedirect, "no redirect was involved")
		})
	}
	assert.Zero(t, other.hits.Load())
	assert.Equal(t, int32(2), target.hits.Load())
}

// TestGetRefusesNonASCIIHost refuses a host name that is not ASCII: the
// resolver would look its raw bytes up, and Unicode case folding makes
// some equal to a locked name (KELVIN SIGN for k). An internationalised
// name is written in its ASCII (punycode) form. Such a name is never looked
// up, given first, redirected to, or against an origin lock.
func TestGetRefusesNonASCIIHost(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	resolver := resolverFunc(func(context.Context, string, string) ([]netip.Addr, error) {
		asked.Add(1)
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	})
	target := &counter{}
	targetSrv := serve(t, "127.0.0.1:0", target)
	homoglyph := "http://\u212Aelvin.test:" + portOf(t, targetSrv) + "/ok"
	front := newHopServer(homoglyph, "")
	frontSrv := serve(t, "127.0.0.1:0", front)
	opts := testOptions()
	opts.Resolver = resolver

	_, err := outbound.New(opts).Get(context.Background(), homoglyph)
	require.ErrorIs(t, err, outbound.ErrURL)

	_, err = outbound.New(opts).Get(context.Background(), frontSrv.URL+"/start")
	require.ErrorIs(t, err, outbound.ErrRedirect)
	require.ErrorIs(t, err, outbound.ErrURL)

	opts.Origin = "http://kelvin.test:" + portOf(t, targetSrv)
	_, err = outbound.New(opts).Get(context.Background(), homoglyph)
	require.ErrorIs(t, err, outbound.ErrURL)

	assert.Zero(t, asked.Load(), "a non-ASCII host name was looked up")
	assert.Zero(t, target.hits.Load())
}

// TestGetDoesNotRetryResolution bounds the cost of a name that does not
// resolve: one lookup per Get, whatever the failure. The resolver has its
// own attempts and timeouts; trying again a few milliseconds later only
// multiplies the queries, and the job that called Get has a back-off of
// its own.
func TestGetDoesNotRetryResolution(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give error // nil: an empty answer
	}{
		{name: "temporary failure", give: &net.DNSError{Err: "server misbehaving", Name: "flaky.test", IsTemporary: true}},
		{name: "timeout", give: &net.DNSError{Err: "i/o timeout", Name: "flaky.test", IsTimeout: true}},
		{name: "not found", give: &net.DNSError{Err: "no such host", Name: "flaky.test", IsNotFound: true}},
		{name: "no address"},
		{name: "resolver error", give: errors.New("resolver broke")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var lookups atomic.Int32
			opts := testOptions()
			opts.Retries = 5
			opts.Resolver = resolverFunc(func(context.Context, string, string) ([]netip.Addr, error) {
				lookups.Add(1)
				return nil, tt.give
			})

			_, err := outbound.New(opts).Get(context.Background(), "http://flaky.test/")

			require.Error(t, err)
			require.ErrorIs(t, err, outbound.ErrResolve)
			if tt.give != nil {
				require.ErrorIs(t, err, tt.give, "the cause is kept for logs")
			}
			assert.NotContains(t, err.Error(), "flaky.test", "the message must not echo the host")
			assert.Equal(t, int32(1), lookups.Load())
		})
	}
}

// TestGetMalformedOriginMatchesNothing keeps a client whose Origin does
// not parse locked rather than open.
func TestGetMalformedOriginMatchesNothing(t *testing.T) {
	t.Parallel()
	target := &counter{}
	srv := serve(t, "127.0.0.1:0", target)

	for _, origin := range []string{"127.0.0.1:" + portOf(t, srv), "ftp://127.0.0.1", "://", "http://user@127.0.0.1:" + portOf(t, srv)} {
		opts := testOptions()
		opts.Origin = origin
		_, err := outbound.New(opts).Get(context.Background(), srv.URL+"/")
		require.ErrorIs(t, err, outbound.ErrHostNotAllowed, "origin %q", origin)
	}
	assert.Zero(t, target.hits.Load())
}
