package outbound

import (
	"net/url"
	"strings"
)

// origin is the scheme, host and port a URL reaches, as the web's
// same-origin rule compares them: the scheme and host in lower case, the
// port as written or, when absent, the scheme's own.
type origin struct {
	scheme, host, port string
}

// originOf reads u's origin; ok is false when u has no host or its host
// name is not ASCII (see asciiHost).
func originOf(u *url.URL) (o origin, ok bool) {
	host := u.Hostname()
	if host == "" || !asciiHost(host) {
		return origin{}, false
	}
	o = origin{scheme: strings.ToLower(u.Scheme), host: asciiLower(host), port: u.Port()}
	if o.port == "" {
		switch o.scheme {
		case "https":
			o.port = "443"
		case "http":
			o.port = "80"
		}
	}
	return o, true
}

// parseOrigin reads Options.Origin: an absolute http(s) URL whose path,
// if any, is ignored. ok is false for anything else.
func parseOrigin(raw string) (origin, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || u.Opaque != "" {
		return origin{}, false
	}
	return originOf(u)
}

// asciiHost reports whether host is printable ASCII. The resolver looks a
// name up byte for byte and does no IDNA mapping, so a name outside ASCII
// never reaches a real host by its intended name; worse, Unicode case
// folding makes some equal to ASCII names ("\u212A" folds to "k", "\u017F"
// to "s"), which would pass a lock compared with strings.EqualFold. An
// internationalised name is written in its ASCII (punycode) form.
func asciiHost(host string) bool {
	for i := 0; i < len(host); i++ {
		if host[i] <= ' ' || host[i] >= 0x7F {
			return false
		}
	}
	return true
}

// asciiLower lowers A-Z only: the one case folding host names have.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}
