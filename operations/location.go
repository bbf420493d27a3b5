package operations

import "strings"

// LocateFrom sets the server's public address (public_url): a Location
// the operations give as a path is sent absolute under it, so a client
// behind any proxy follows it as it is. Without one, paths go out as they
// are (RFC 9110 §10.2.2 lets a Location be relative).
func (f *Face) LocateFrom(publicURL string) { f.base = strings.TrimSuffix(publicURL, "/") }

// locate makes a resource's address absolute when it is a path and the
// public address is known; an absolute address is left alone.
func (f *Face) locate(addr string) string {
	if f.base == "" || !strings.HasPrefix(addr, "/") || strings.HasPrefix(addr, "//") {
		return addr
	}
	return f.base + addr
}
