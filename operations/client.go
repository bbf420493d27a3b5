package operations

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"cairn.dev/cairn/registry"
)

// ClientAddress is the caller's IP address: the peer of the connection
// (remoteAddr, "host:port"), unless that peer is a trusted proxy; then the
// X-Forwarded-For chain is read from the right, skipping trusted proxies,
// and the first address that is not one is the caller. A proxy not in
// trusted is never believed, so a client cannot choose its own address.
func ClientAddress(remoteAddr, forwardedFor string, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return ""
	}
	peer = peer.Unmap()
	if !isTrusted(peer, trusted) || forwardedFor == "" {
		return peer.String()
	}
	hops := strings.Split(forwardedFor, ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return peer.String() // a malformed chain is not believed past this point
		}
		if a = a.Unmap(); !isTrusted(a, trusted) {
			return a.String()
		}
	}
	return peer.String()
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// WithClientAddress sets, on every request next receives, the
// registry.HeaderClientAddress header to the caller's address, replacing
// whatever the client sent: the MCP endpoint reads the address from it.
func WithClientAddress(trusted []netip.Prefix, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set(registry.HeaderClientAddress, ClientAddress(r.RemoteAddr, r.Header.Get("X-Forwarded-For"), trusted))
		next.ServeHTTP(w, r)
	})
}

// cookies reads a Cookie header into a map, the first value of a name winning.
func cookies(header string) map[string]string {
	if header == "" {
		return nil
	}
	out := map[string]string{}
	for _, c := range (&http.Request{Header: http.Header{"Cookie": {header}}}).Cookies() {
		if _, ok := out[c.Name]; !ok {
			out[c.Name] = c.Value
		}
	}
	return out
}
