package oauth

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// MaxRedirectURI bounds a redirect URI: a client's own callback is a short
// address, and whatever is refused is echoed clipped.
const MaxRedirectURI = 512

// Schemes never accepted as a private-use redirect (RFC 8252 §7.1): those
// a browser or the system runs or opens itself rather than handing to the
// native client that registered them.
var reservedSchemes = map[string]bool{
	"http": true, "https": true, "javascript": true, "data": true, "vbscript": true, "file": true,
	"about": true, "blob": true, "filesystem": true, "ftp": true, "ws": true, "wss": true,
	"mailto": true, "tel": true, "sms": true, "urn": true, "intent": true, "view-source": true,
	"chrome": true, "chrome-extension": true, "moz-extension": true, "resource": true, "jar": true,
}

// redirectProblem judges a redirect URI against a strict grammar before it
// reaches a header (the consent's Content-Security-Policy), a page or a
// Location: "" when it is one of
//
//   - https://host[:port]/path[?query] for any DNS name or IP address;
//   - http:// to a loopback address (127.0.0.1, [::1] or localhost), any
//     port (RFC 8252 §7.3);
//   - a private-use scheme, scheme:/path or scheme://host/path, for a
//     native client (RFC 8252 §7.1), the scheme not one a browser or the
//     system handles itself;
//
// with at most MaxRedirectURI characters, no fragment, no credentials, and
// path and query made only of RFC 3986's characters (percent-escapes well
// formed). Otherwise it says why.
func redirectProblem(raw string) string {
	if len(raw) > MaxRedirectURI {
		return "a redirect URI has at most " + strconv.Itoa(MaxRedirectURI) + " characters"
	}
	for i := 0; i < len(raw); i++ {
		if !uriChar(raw[i]) {
			return "a redirect URI holds only the characters of RFC 3986 (no space, quote, angle bracket or control character)"
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return "a redirect URI is an absolute URL: scheme, then // and a host, or a private-use scheme and a path"
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "a redirect URI has no fragment"
	}
	if u.User != nil {
		return "a redirect URI carries no credentials"
	}
	if !wellEscaped(u.EscapedPath()) || !wellEscaped(u.RawQuery) {
		return "a redirect URI's percent-escapes are two hexadecimal digits"
	}
	if u.Host != "" && !validHost(u) {
		return "a redirect URI's host is a DNS name or an IP address, and its port a number"
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return "an https redirect URI names a host"
		}
		return ""
	case "http":
		if !isLoopback(u) {
			return "plain http is for a loopback address only (127.0.0.1, [::1] or localhost)"
		}
		return ""
	}
	if !privateScheme(u.Scheme) {
		return "a redirect URI is https, http on a loopback address, or a native client's private-use scheme (RFC 8252)"
	}
	if u.Host == "" && !strings.HasPrefix(u.Path, "/") {
		return "a private-use redirect URI has a path: scheme:/path"
	}
	return ""
}

// uriChar: the characters RFC 3986 allows in a URI (unreserved, reserved
// and %), which leave out space, quotes, angle brackets, backslash, the
// braces, caret, backtick, pipe and every control or non-ASCII byte.
func uriChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#[]@!$&'()*+,;=%", c) >= 0
}

func wellEscaped(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// validHost: a DNS name (labels of letters, digits and hyphens) or an IP
// literal, and a port of digits in range when given. Nothing else reaches
// the policy header, which names the host.
func validHost(u *url.URL) bool {
	if p := u.Port(); p != "" || strings.HasSuffix(u.Host, ":") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != p {
			return false
		}
	}
	h := u.Hostname()
	if strings.HasPrefix(u.Host, "[") {
		return net.ParseIP(h) != nil && strings.Contains(h, ":")
	}
	if len(h) == 0 || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// privateScheme: RFC 3986's scheme grammar, lower case as registered, and
// not a scheme a browser or the system handles.
func privateScheme(s string) bool {
	if s == "" || reservedSchemes[s] || !('a' <= s[0] && s[0] <= 'z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// formSource is the Content-Security-Policy source of a checked redirect
// URI: its origin, or its scheme alone for a private-use one without a
// host.
func formSource(u *url.URL) string {
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return u.Scheme + "://" + u.Host
}
