package outbound

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOriginOf(t *testing.T) {
	t.Parallel()

	tests := []struct {
		a, b string
		same bool
	}{
		{a: "https://www.strava.com/routes/1", b: "https://www.strava.com/other?x=1#y", same: true},
		{a: "https://www.strava.com/", b: "https://www.strava.com:443/", same: true},
		{a: "http://127.0.0.1/", b: "http://127.0.0.1:80/", same: true},
		{a: "https://WWW.Strava.COM/", b: "https://www.strava.com/", same: true},
		{a: "HTTPS://www.strava.com/", b: "https://www.strava.com/", same: true},
		{a: "http://[::1]:8080/", b: "http://[::1]:8080/x", same: true},

		{a: "https://www.strava.com/", b: "http://www.strava.com/"},
		{a: "http://www.strava.com:443/", b: "https://www.strava.com/"},
		{a: "https://www.strava.com/", b: "https://www.strava.com:8443/"},
		{a: "https://www.strava.com/", b: "https://strava.com/"},
		{a: "https://www.strava.com/", b: "https://www.strava.com./"},
		{a: "https://www.strava.com:443/", b: "https://www.strava.com:0443/"},
		{a: "http://127.0.0.1:8080/", b: "http://localhost:8080/"},
		{a: "http://127.0.0.1:8080/", b: "http://[::ffff:127.0.0.1]:8080/"},
	}
	for _, tt := range tests {
		t.Run(tt.a+" "+tt.b, func(t *testing.T) {
			t.Parallel()
			a, okA := originOf(mustParse(t, tt.a))
			b, okB := originOf(mustParse(t, tt.b))
			require.True(t, okA)
			require.True(t, okB)
			assert.Equal(t, tt.same, a == b)
		})
	}
}

func TestOriginOfRefusesNonASCIIHosts(t *testing.T) {
	t.Parallel()

	for _, give := range []string{
		"https://www.\u017Ftrava.com/", // long s: strings.EqualFold says "s"
		"https://\u212Aomoot.com/",     // Kelvin sign: strings.EqualFold says "k"
		"https://www.str\u0430va.com/", // Cyrillic a
		"https:///",
	} {
		_, ok := originOf(mustParse(t, give))
		assert.False(t, ok, give)
	}
}

func TestParseOrigin(t *testing.T) {
	t.Parallel()

	for _, give := range []string{"", "www.strava.com", "ftp://www.strava.com", "https://user@www.strava.com", "https:opaque", "://"} {
		_, ok := parseOrigin(give)
		assert.False(t, ok, give)
	}
	got, ok := parseOrigin("https://www.strava.com/ignored/path")
	require.True(t, ok)
	assert.Equal(t, origin{scheme: "https", host: "www.strava.com", port: "443"}, got)
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

func TestRefusalReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{&ForbiddenAddressError{}, "forbidden_address"},
		{ErrRedirect, "redirect"},
		{ErrHostNotAllowed, "host_not_allowed"},
		{ErrScheme, "scheme"},
		{ErrURL, "url"},
		{ErrTooLarge, ""},
	}
	for _, tt := range tests {
		if got := refusalReason(tt.err); got != tt.want {
			t.Errorf("refusalReason(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
