package operations_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
)

func TestClientAddress(t *testing.T) {
	t.Parallel()
	proxy := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		name, remote, forwarded string
		trusted                 []netip.Prefix
		want                    string
	}{
		{"the peer, without proxies", "198.51.100.7:5123", "", nil, "198.51.100.7"},
		{"a header from an untrusted peer is not believed", "198.51.100.7:5123", "192.0.2.1", proxy, "198.51.100.7"},
		{"a header from an untrusted peer, no proxies configured", "198.51.100.7:5123", "192.0.2.1", nil, "198.51.100.7"},
		{"a trusted proxy names the caller", "10.1.2.3:80", "192.0.2.1", proxy, "192.0.2.1"},
		{"read from the right: a forged left end is ignored", "10.1.2.3:80", "6.6.6.6, 192.0.2.1, 10.9.9.9", proxy, "192.0.2.1"},
		{"a malformed chain stops at the proxy", "10.1.2.3:80", "garbage", proxy, "10.1.2.3"},
		{"IPv6 peer", "[2001:db8::1]:443", "", nil, "2001:db8::1"},
		{"an IPv4-mapped peer is its IPv4 address", "[::ffff:198.51.100.7]:1", "", nil, "198.51.100.7"},
		{"no address at all", "", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, operations.ClientAddress(tt.remote, tt.forwarded, tt.trusted))
		})
	}
}

func TestWithClientAddressOverwritesTheClientsHeader(t *testing.T) {
	t.Parallel()
	var got string
	h := operations.WithClientAddress(nil, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got = r.Header.Get(registry.HeaderClientAddress)
	}))
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.RemoteAddr = "198.51.100.7:4000"
	r.Header.Set(registry.HeaderClientAddress, "1.2.3.4") // forged by the client
	h.ServeHTTP(httptest.NewRecorder(), r)
	require.Equal(t, "198.51.100.7", got)
}
