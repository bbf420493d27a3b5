package outbound_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/outbound"
)

// loopback lets a client reach test servers on 127.0.0.1 only; the
// forbidden targets listen on 127.0.0.2, outside it.
var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}

// fakeDNS answers the names it holds and nothing else, so no test depends
// on the machine's resolver.
type fakeDNS map[string][]netip.Addr

func (r fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if addrs, ok := r[strings.ToLower(host)]; ok {
		return addrs, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// dns makes evil.test resolve to the forbidden target, and mixed.test to a
// public address and the target: one private answer must sink the name.
var dns = fakeDNS{
	"evil.test":  {netip.MustParseAddr("127.0.0.2")},
	"evil6.test": {netip.MustParseAddr("::ffff:127.0.0.2")},
	"mixed.test": {netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("127.0.0.2")},
	"meta.test":  {netip.MustParseAddr("169.254.169.254")},
}

// counter is a handler that counts its calls and answers "ok".
type counter struct{ hits atomic.Int32 }

func (c *counter) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	c.hits.Add(1)
	fmt.Fprint(w, "ok")
}

// serve starts h on listenAddr ("127.0.0.1:0" or "127.0.0.2:0").
func serve(t *testing.T, listenAddr string, h http.Handler) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", listenAddr)
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// forbiddenTarget is a server the client must never reach, on 127.0.0.2.
func forbiddenTarget(t *testing.T) (port string, hits *atomic.Int32) {
	t.Helper()
	c := &counter{}
	srv := serve(t, "127.0.0.2:0", c)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	return port, &c.hits
}

// testOptions reach 127.0.0.1 over http and retry without waiting long.
func testOptions() outbound.Options {
	return outbound.Options{AllowHTTP: true, Allow: loopback, Resolver: dns, RetryDelay: time.Millisecond}
}

func TestGetRefusesForbiddenAddresses(t *testing.T) {
	t.Parallel()
	port, hits := forbiddenTarget(t)
	// No Allow: every loopback address is forbidden here, 127.0.0.1 included.
	client := outbound.New(outbound.Options{AllowHTTP: true, Resolver: dns, RetryDelay: time.Millisecond})

	tests := []struct {
		name string
		give string
	}{
		{name: "loopback", give: "http://127.0.0.1:%s/"},
		{name: "loopback target itself", give: "http://127.0.0.2:%s/"},
		{name: "loopback with trailing dot", give: "http://127.0.0.2.:%s/"},
		{name: "decimal", give: "http://2130706434:%s/"},
		{name: "octal", give: "http://0177.0.0.2:%s/"},
		{name: "hex", give: "http://0x7f.2:%s/"},
		{name: "hex whole", give: "http://0x7f000002:%s/"},
		{name: "short form", give: "http://127.2:%s/"},
		{name: "IPv6 loopback", give: "http://[::1]:%s/"},
		{name: "IPv4-mapped IPv6", give: "http://[::ffff:127.0.0.2]:%s/"},
		{name: "IPv4-mapped IPv6 in hex", give: "http://[::ffff:7f00:2]:%s/"},
		{name: "IPv4-compatible IPv6", give: "http://[::127.0.0.2]:%s/"},
		{name: "NAT64", give: "http://[64:ff9b::7f00:2]:%s/"},
		{name: "unspecified", give: "http://0.0.0.0:%s/"},
		{name: "IPv6 unspecified", give: "http://[::]:%s/"},
		{name: "name resolving to loopback", give: "http://evil.test:%s/"},
		{name: "name resolving to mapped loopback", give: "http://EVIL6.test:%s/"},
		{name: "name with one private answer", give: "http://mixed.test:%s/"},
		{name: "private 10/8", give: "http://10.0.0.1:%s/"},
		{name: "private 172.16/12", give: "http://172.16.0.1:%s/"},
		{name: "private 192.168/16", give: "http://192.168.1.1:%s/"},
		{name: "CGNAT", give: "http://100.64.0.1:%s/"},
		{name: "cloud metadata", give: "http://169.254.169.254:%s/latest/meta-data/"},
		{name: "cloud metadata by name", give: "http://meta.test:%s/"},
		{name: "IPv6 link-local with zone", give: "http://[fe80::1%%25lo]:%s/"},
		{name: "IPv6 unique local", give: "http://[fd00::1]:%s/"},
		{name: "multicast", give: "http://224.0.0.1:%s/"},
		{name: "broadcast", give: "http://255.255.255.255:%s/"},
	}
	t.Run("group", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				give := fmt.Sprintf(tt.give, port)
				_, err := client.Get(context.Background(), give)
				require.ErrorIs(t, err, outbound.ErrForbiddenAddress)
				u, perr := url.Parse(give)
				require.NoError(t, perr)
				assert.NotContains(t, err.Error(), u.Hostname(), "the message must not echo the host")
				assert.NotContains(t, err.Error(), port)
			})
		}
	})
	assert.Zero(t, hits.Load(), "a forbidden target was reached")
}

func TestGetRefusesLocalhostThroughSystemResolver(t *testing.T) {
	t.Parallel()
	port, hits := forbiddenTarget(t)
	client := outbound.New(outbound.Options{AllowHTTP: true}) // net.DefaultResolver

	_, err := client.Get(context.Background(), "http://localhost:"+port+"/")

	require.ErrorIs(t, err, outbound.ErrForbiddenAddress)
	assert.Zero(t, hits.Load())
}

func TestForbiddenAddressErrorNamesTheAddressForLogs(t *testing.T) {
	t.Parallel()
	client := outbound.New(outbound.Options{AllowHTTP: true, Resolver: dns})

	_, err := client.Get(context.Background(), "http://evil.test/")

	var forbidden *outbound.ForbiddenAddressError
	require.ErrorAs(t, err, &forbidden)
	assert.Equal(t, "evil.test", forbidden.Host)
	assert.Equal(t, netip.MustParseAddr("127.0.0.2"), forbidden.Addr)
	assert.Equal(t, outbound.ErrForbiddenAddress.Error(), err.Error())
}

// redirector answers every request with a redirect to location.
func redirector(location string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, location, http.StatusFound)
	})
}

func TestGetRefusesRedirectToForbiddenAddress(t *testing.T) {
	t.Parallel()
	port, hits := forbiddenTarget(t)

	tests := []struct {
		name string
		give string // the redirect's Location
	}{
		{name: "loopback literal", give: "http://127.0.0.2:%s/"},
		{name: "decimal", give: "http://2130706434:%s/"},
		{name: "octal", give: "http://0177.0.0.2:%s/"},
		{name: "hex", give: "http://0x7f.0.0.2:%s/"},
		{name: "mapped IPv6", give: "http://[::ffff:127.0.0.2]:%s/"},
		{name: "name resolving to loopback", give: "http://evil.test:%s/"},
		{name: "cloud metadata", give: "http://169.254.169.254:%s/latest/meta-data/"},
		{name: "private", give: "http://10.0.0.1:%s/"},
	}
	t.Run("group", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				allowed := &atomic.Int32{}
				srv := serve(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					allowed.Add(1)
					http.Redirect(w, r, fmt.Sprintf(tt.give, port), http.StatusFound)
				}))
				client := outbound.New(testOptions())

				_, err := client.Get(context.Background(), srv.URL)

				// Another origin: refused before any connection, whatever
				// the address; TestGetRedirectIsJudgedAtConnectTime covers
				// a redirect that stays on its origin.
				require.ErrorIs(t, err, outbound.ErrRedirect)
				require.ErrorIs(t, err, outbound.ErrHostNotAllowed)
				assert.Equal(t, int32(1), allowed.Load(), "a refusal is final: no retry")
			})
		}
	})
	assert.Zero(t, hits.Load(), "a forbidden target was reached")
}

// TestForbiddenTargetIsReachableWhenAllowed proves the setup above: with
// 127.0.0.2 allowed, the target answers by its name, so the zero counts
// there come from the policy and not from an unreachable server.
func TestForbiddenTargetIsReachableWhenAllowed(t *testing.T) {
	t.Parallel()
	port, hits := forbiddenTarget(t)
	opts := testOptions()
	opts.Allow = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/30")}
	client := outbound.New(opts)

	resp, err := client.Get(context.Background(), "http://evil.test:"+port+"/")

	require.NoError(t, err)
	assert.Equal(t, "ok", string(resp.Body))
	assert.Equal(t, "evil.test", resp.URL.Hostname())
	assert.Equal(t, int32(1), hits.Load())
}

// TestGetRedirectIsJudgedAtConnectTime follows a redirect within its
// origin whose name then resolves to a forbidden address (DNS rebinding):
// the new connection is judged again and refused.
func TestGetRedirectIsJudgedAtConnectTime(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := serve(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Connection", "close") // the redirect needs a new connection
		http.Redirect(w, r, "/next", http.StatusFound)
	}))
	var lookups atomic.Int32
	opts := testOptions()
	opts.Resolver = resolverFunc(func(context.Context, string, string) ([]netip.Addr, error) {
		if lookups.Add(1) == 1 {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.2")}, nil
	})

	_, err := outbound.New(opts).Get(context.Background(), "http://rebind.test:"+portOf(t, srv)+"/")

	require.ErrorIs(t, err, outbound.ErrForbiddenAddress)
	assert.Equal(t, int32(2), lookups.Load(), "the redirect's connection resolved the name again")
	assert.Equal(t, int32(1), hits.Load(), "a refusal is final: no retry")
}

func TestGetRefusesScheme(t *testing.T) {
	t.Parallel()
	client := outbound.New(outbound.Options{Resolver: dns}) // https only

	tests := []struct {
		name string
		give string
	}{
		{name: "plain http", give: "http://example.test/"},
		{name: "file", give: "file:///etc/passwd"},
		{name: "ftp", give: "ftp://example.test/route.gpx"},
		{name: "gopher", give: "gopher://127.0.0.1:6379/_FLUSHALL"},
		{name: "javascript", give: "javascript:alert(1)"},
		{name: "relative", give: "/routes/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := client.Get(context.Background(), tt.give)
			require.ErrorIs(t, err, outbound.ErrScheme)
		})
	}
}

func TestGetRefusesMalformedURL(t *testing.T) {
	t.Parallel()
	client := outbound.New(testOptions())

	tests := []struct {
		name string
		give string
	}{
		{name: "credentials", give: "http://user:secret@127.0.0.1/"},
		{name: "no host", give: "http:///path"},
		{name: "opaque", give: "http:127.0.0.1/"},
		{name: "bad escape", give: "http://127.0.0.1/%zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := client.Get(context.Background(), tt.give)
			require.ErrorIs(t, err, outbound.ErrURL)
		})
	}
}

func TestGetRefusesRedirectScheme(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give string
	}{
		{name: "file", give: "file:///etc/passwd"},
		{name: "ftp", give: "ftp://127.0.0.1/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, "127.0.0.1:0", redirector(tt.give))
			client := outbound.New(testOptions())

			_, err := client.Get(context.Background(), srv.URL)

			require.ErrorIs(t, err, outbound.ErrScheme)
		})
	}
}

func TestGetRefusesDowngradeFromHTTPS(t *testing.T) {
	t.Parallel()
	plain := &counter{}
	plainSrv := serve(t, "127.0.0.1:0", plain)
	tlsSrv := httptest.NewTLSServer(redirector(plainSrv.URL))
	t.Cleanup(tlsSrv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(tlsSrv.Certificate())
	client := outbound.New(outbound.Options{Allow: loopback, RootCAs: roots}) // https only

	_, err := client.Get(context.Background(), tlsSrv.URL)

	require.ErrorIs(t, err, outbound.ErrScheme)
	assert.Zero(t, plain.hits.Load())
}

func TestGetHTTPS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(&counter{})
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	client := outbound.New(outbound.Options{Allow: loopback, RootCAs: roots})

	resp, err := client.Get(context.Background(), srv.URL)

	require.NoError(t, err)
	assert.Equal(t, "ok", string(resp.Body))
}

// chain redirects /r/{n} to /r/{n-1} and answers "done" at /r/0.
func chain() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if n == 0 {
			fmt.Fprint(w, "done")
			return
		}
		http.Redirect(w, r, "/r/"+strconv.Itoa(n-1), http.StatusMovedPermanently)
	})
}

func TestGetRedirectLimit(t *testing.T) {
	t.Parallel()
	srv := serve(t, "127.0.0.1:0", chain())

	tests := []struct {
		name         string
		maxRedirects int
		give         int // redirects before the answer
		wantErr      error
	}{
		{name: "default allows two", give: 2},
		{name: "default refuses a third", give: 3, wantErr: outbound.ErrTooManyRedirects},
		{name: "raised", maxRedirects: 5, give: 5},
		{name: "none allowed, none made", maxRedirects: -1, give: 0},
		{name: "none allowed, one made", maxRedirects: -1, give: 1, wantErr: outbound.ErrTooManyRedirects},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := testOptions()
			opts.MaxRedirects = tt.maxRedirects
			client := outbound.New(opts)

			resp, err := client.Get(context.Background(), srv.URL+"/r/"+strconv.Itoa(tt.give))

			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "done", string(resp.Body))
			assert.Equal(t, "/r/0", resp.URL.Path)
		})
	}
}

func TestGetSizeCap(t *testing.T) {
	t.Parallel()
	const limit = 1000

	tests := []struct {
		name          string
		give          int  // body size
		contentLength bool // announce the size, or stream it chunked
		wantErr       error
	}{
		{name: "at the limit", give: limit},
		{name: "at the limit, announced", give: limit, contentLength: true},
		{name: "over, streamed", give: limit + 1, wantErr: outbound.ErrTooLarge},
		{name: "far over, streamed", give: 50 * limit, wantErr: outbound.ErrTooLarge},
		{name: "over, announced", give: limit + 1, contentLength: true, wantErr: outbound.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var hits atomic.Int32
			srv := serve(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				hits.Add(1)
				body := strings.Repeat("x", tt.give)
				if tt.contentLength {
					w.Header().Set("Content-Length", strconv.Itoa(len(body)))
					fmt.Fprint(w, body)
					return
				}
				// Flushing first forces chunked encoding: no length announced.
				w.(http.Flusher).Flush()
				fmt.Fprint(w, body)
			}))
			opts := testOptions()
			opts.MaxBytes = limit
			client := outbound.New(opts)

			resp, err := client.Get(context.Background(), srv.URL)

			assert.Equal(t, int32(1), hits.Load(), "the cap is final: no retry")
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Len(t, resp.Body, tt.give)
		})
	}
}

// script answers the statuses in turn, then 200 "ok" for ever.
func script(statuses ...int) (http.Handler, *atomic.Int32) {
	var hits atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := int(hits.Add(1))
		if n <= len(statuses) {
			w.WriteHeader(statuses[n-1])
			return
		}
		fmt.Fprint(w, "ok")
	}), &hits
}

func TestGetRetries(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		retries  int
		give     []int // statuses before the 200
		wantHits int32
		wantCode int // 0: success
	}{
		{name: "503 twice then success", give: []int{503, 503}, wantHits: 3},
		{name: "429 then success", give: []int{429}, wantHits: 2},
		{name: "500 then success", give: []int{500}, wantHits: 2},
		{name: "503 three times", give: []int{503, 503, 503}, wantHits: 3, wantCode: 503},
		{name: "no retry on 404", give: []int{404}, wantHits: 1, wantCode: 404},
		{name: "no retry on 403", give: []int{403}, wantHits: 1, wantCode: 403},
		{name: "no retry on 410", give: []int{410}, wantHits: 1, wantCode: 410},
		{name: "no retry on 400", give: []int{400}, wantHits: 1, wantCode: 400},
		{name: "retries off", retries: -1, give: []int{503}, wantHits: 1, wantCode: 503},
		{name: "more retries", retries: 4, give: []int{502, 503, 504, 500}, wantHits: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, hits := script(tt.give...)
			srv := serve(t, "127.0.0.1:0", h)
			opts := testOptions()
			opts.Retries = tt.retries
			client := outbound.New(opts)

			resp, err := client.Get(context.Background(), srv.URL)

			assert.Equal(t, tt.wantHits, hits.Load())
			if tt.wantCode != 0 {
				var status *outbound.StatusError
				require.ErrorAs(t, err, &status)
				assert.Equal(t, tt.wantCode, status.Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "ok", string(resp.Body))
		})
	}
}

func TestGetRetriesTransportErrors(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := serve(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if hits.Add(1) <= 2 {
			// Drop the connection without an answer.
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		fmt.Fprint(w, "ok")
	}))
	client := outbound.New(testOptions())

	resp, err := client.Get(context.Background(), srv.URL)

	require.NoError(t, err)
	assert.Equal(t, "ok", string(resp.Body))
	assert.Equal(t, int32(3), hits.Load())
}

func TestGetTimeoutCoversTheWholeFetch(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := serve(t, "127.0.0.1:0", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		<-r.Context().Done() // never answers
	}))
	opts := testOptions()
	opts.Timeout = 50 * time.Millisecond
	client := outbound.New(opts)

	_, err := client.Get(context.Background(), srv.URL)

	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, int32(1), hits.Load(), "the budget is spent: no retry")
}

func TestGetStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	h, hits := script(503, 503, 503)
	srv := serve(t, "127.0.0.1:0", h)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := outbound.New(testOptions()).Get(ctx, srv.URL)

	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, hits.Load())
}

func TestGetGivesUpWhenRetryAfterOutlastsTheBudget(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := serve(t, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}))

	_, err := outbound.New(testOptions()).Get(context.Background(), srv.URL)

	var status *outbound.StatusError
	require.ErrorAs(t, err, &status)
	assert.Equal(t, http.StatusTooManyRequests, status.Code)
	assert.Equal(t, time.Hour, status.RetryAfter)
	assert.Equal(t, int32(1), hits.Load(), "waiting an hour would pass the 10 s budget")
}

func TestGetDoesNotRetryUnknownHost(t *testing.T) {
	t.Parallel()
	var lookups atomic.Int32
	resolver := resolverFunc(func(ctx context.Context, network, host string) ([]netip.Addr, error) {
		lookups.Add(1)
		return dns.LookupNetIP(ctx, network, host)
	})
	opts := testOptions()
	opts.Resolver = resolver

	_, err := outbound.New(opts).Get(context.Background(), "http://nowhere.test/")

	var dnsErr *net.DNSError
	require.ErrorAs(t, err, &dnsErr)
	assert.Equal(t, int32(1), lookups.Load())
}

// resolverFunc adapts a function to outbound.Resolver.
type resolverFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

func (f resolverFunc) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return f(ctx, network, host)
}

func TestGetSendsHeaders(t *testing.T) {
	t.Parallel()
	headers := make(chan http.Header, 1)
	srv := serve(t, "127.0.0.1:0", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Clone()
	}))
	opts := testOptions()
	opts.Header = http.Header{"Accept": {"application/json"}}
	client := outbound.New(opts)

	_, err := client.Get(context.Background(), srv.URL)

	require.NoError(t, err)
	got := <-headers
	assert.Equal(t, "application/json", got.Get("Accept"))
	assert.Equal(t, outbound.DefaultUserAgent, got.Get("User-Agent"))
}
