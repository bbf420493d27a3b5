package source

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reason says why Recognise refused a URL: the first rule, in the order
// below, that the URL breaks.
type Reason string

// The reasons of an UnsupportedError.
const (
	// ReasonTooLong: longer than MaxURLBytes.
	ReasonTooLong Reason = "longer than the limit"
	// ReasonCharacters: a control, format or white-space character inside
	// the URL, invalid UTF-8, or a backslash (which browsers and some
	// parsers read as a slash).
	ReasonCharacters Reason = "control character, white space or backslash"
	// ReasonScheme: not written "https://" in lower case.
	ReasonScheme Reason = "not an https URL"
	// ReasonUserinfo: a user name or password before the host ("@").
	ReasonUserinfo Reason = "credentials before the host"
	// ReasonEncoding: a percent-encoding in the host or the path, where a
	// share link has none and a decoder would read another path.
	ReasonEncoding Reason = "percent-encoded host or path"
	// ReasonMalformed: the URL does not parse.
	ReasonMalformed Reason = "not a URL"
	// ReasonHost: not a provider's host name exactly as the provider writes
	// it: an IP address in any spelling, another name, a trailing dot, a
	// look-alike character, upper case.
	ReasonHost Reason = "not a provider's host"
	// ReasonPort: a port, even the default one, or an empty one.
	ReasonPort Reason = "port"
	// ReasonPath: a provider's host, but not one of its route paths with a
	// 1 to 19 digit id: traversal, more path, another kind of page, an id
	// that is not plain ASCII digits.
	ReasonPath Reason = "not a route's path"
)

// Supported names the providers and the address forms Recognise accepts,
// for a refusal to quote: a caller who pasted another address learns what
// to paste instead.
const Supported = "a Komoot tour or collection (https://www.komoot.com/tour/123, https://www.komoot.com/collection/123), " +
	"a Strava route (https://www.strava.com/routes/123) or a RideWithGPS route (https://ridewithgps.com/routes/123)"

// providerHosts are the host names the patterns accept.
var providerHosts = map[string]bool{
	"komoot.com": true, "www.komoot.com": true,
	"strava.com": true, "www.strava.com": true,
	"ridewithgps.com": true, "www.ridewithgps.com": true,
}

// printable reports whether s is valid UTF-8 without control, format or
// white-space characters and without a backslash.
func printable(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return false // an invalid byte, not a written U+FFFD
			}
		}
		if r == '\\' || unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf) {
			return false
		}
	}
	return true
}

// diagnose names the first rule a printable URL that no pattern matched
// breaks.
func diagnose(s string) Reason {
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		return ReasonScheme
	}
	authority, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	switch {
	case strings.Contains(authority, "@"):
		return ReasonUserinfo
	case strings.Contains(authority, "%") && !strings.HasPrefix(authority, "["):
		return ReasonEncoding // a zone in an IPv6 literal is escaped too, and is a host matter
	}
	u, err := url.Parse(s)
	if err != nil {
		return ReasonMalformed
	}
	switch {
	case !providerHosts[u.Hostname()]:
		return ReasonHost
	case u.Port() != "" || strings.HasSuffix(u.Host, ":"):
		return ReasonPort
	case strings.Contains(path, "%"):
		return ReasonEncoding
	}
	return ReasonPath
}
