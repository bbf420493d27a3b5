package source_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/source"
	"cairn.dev/cairn/outbound"
)

// TestRecogniseSSRFForms runs the address forms used to make a server
// fetch somewhere it should not through source recognition. Each is refused
// with its reason, and nothing is requested: the caller's URL never
// decides where a request goes.
func TestRecogniseSSRFForms(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give string
		want source.Reason
	}{
		// IP spellings, for loopback and the metadata service.
		{name: "IPv4 loopback", give: "https://127.0.0.1/routes/1", want: source.ReasonHost},
		{name: "decimal", give: "https://2130706433/routes/1", want: source.ReasonHost},
		{name: "octal", give: "https://0177.0.0.1/routes/1", want: source.ReasonHost},
		{name: "hex", give: "https://0x7f.0.0.1/routes/1", want: source.ReasonHost},
		{name: "hex whole", give: "https://0x7f000001/routes/1", want: source.ReasonHost},
		{name: "short form", give: "https://127.1/routes/1", want: source.ReasonHost},
		{name: "IPv6 loopback", give: "https://[::1]/routes/1", want: source.ReasonHost},
		{name: "IPv4-mapped IPv6", give: "https://[::ffff:127.0.0.1]/routes/1", want: source.ReasonHost},
		{name: "IPv4-mapped IPv6 in hex", give: "https://[::ffff:7f00:1]/routes/1", want: source.ReasonHost},
		{name: "IPv6 with zone", give: "https://[fe80::1%25eth0]/routes/1", want: source.ReasonHost},
		{name: "cloud metadata", give: "https://169.254.169.254/routes/1", want: source.ReasonHost},
		{name: "unclosed IPv6 literal", give: "https://[::1/routes/1", want: source.ReasonMalformed},

		// Userinfo: the provider's name before an @ is a user name.
		{name: "provider as user name", give: "https://www.strava.com@127.0.0.1/routes/1", want: source.ReasonUserinfo},
		{name: "user and password", give: "https://user:secret@www.strava.com/routes/1", want: source.ReasonUserinfo},
		{name: "empty user name", give: "https://@www.strava.com/routes/1", want: source.ReasonUserinfo},
		{name: "provider as user, port", give: "https://www.komoot.com:443@evil.test/tour/1", want: source.ReasonUserinfo},
		{name: "at sign after a fragment mark", give: "https://127.0.0.1#@www.strava.com/routes/1", want: source.ReasonHost},
		{name: "at sign after a query mark", give: "https://127.0.0.1?@www.strava.com/routes/1", want: source.ReasonHost},

		// Ports.
		{name: "default port spelled out", give: "https://www.strava.com:443/routes/1", want: source.ReasonPort},
		{name: "another port", give: "https://www.strava.com:8443/routes/1", want: source.ReasonPort},
		{name: "empty port", give: "https://www.strava.com:/routes/1", want: source.ReasonPort},
		{name: "port on a provider IP", give: "https://127.0.0.1:6379/routes/1", want: source.ReasonHost},

		// Percent-encodings.
		{name: "encoded id", give: "https://www.strava.com/routes/%31", want: source.ReasonEncoding},
		{name: "encoded slash", give: "https://www.strava.com/routes%2F1", want: source.ReasonEncoding},
		{name: "encoded path letter", give: "https://www.strava.com/%72outes/1", want: source.ReasonEncoding},
		{name: "encoded traversal", give: "https://www.strava.com/routes/1%2F..%2F..%2Fadmin", want: source.ReasonEncoding},
		{name: "encoded NUL", give: "https://www.strava.com/routes/1%00", want: source.ReasonEncoding},
		{name: "encoded host letter", give: "https://%77ww.strava.com/routes/1", want: source.ReasonEncoding},
		{name: "encoded host dot", give: "https://www%2estrava.com/routes/1", want: source.ReasonEncoding},
		{name: "encoded at sign", give: "https://www.strava.com%40127.0.0.1/routes/1", want: source.ReasonEncoding},

		// Homoglyphs and internationalised names.
		{name: "Cyrillic a", give: "https://www.str\u0430va.com/routes/1", want: source.ReasonHost},
		{name: "long s, which folds to s", give: "https://www.\u017Ftrava.com/routes/1", want: source.ReasonHost},
		{name: "Kelvin sign, which folds to k", give: "https://www.\u212Aomoot.com/tour/1", want: source.ReasonHost},
		{name: "fullwidth letters", give: "https://www.\uFF53trava.com/routes/1", want: source.ReasonHost},
		{name: "ideographic full stop", give: "https://www.strava\u3002com/routes/1", want: source.ReasonHost},
		{name: "punycode look-alike", give: "https://www.xn--strva-6ve.com/routes/1", want: source.ReasonHost},
		{name: "upper case", give: "https://WWW.STRAVA.COM/routes/1", want: source.ReasonHost},
		{name: "provider as a subdomain", give: "https://www.strava.com.evil.test/routes/1", want: source.ReasonHost},
		{name: "provider as a suffix", give: "https://evilstrava.com/routes/1", want: source.ReasonHost},

		// Trailing dots.
		{name: "trailing dot", give: "https://www.strava.com./routes/1", want: source.ReasonHost},
		{name: "two trailing dots", give: "https://www.strava.com../routes/1", want: source.ReasonHost},
		{name: "trailing dot, no www", give: "https://komoot.com./tour/1", want: source.ReasonHost},

		// Path tricks.
		{name: "traversal after the id", give: "https://www.strava.com/routes/1/../../x", want: source.ReasonPath},
		{name: "traversal before the id", give: "https://www.strava.com/routes/../routes/1", want: source.ReasonPath},
		{name: "dot segment", give: "https://www.strava.com/./routes/1", want: source.ReasonPath},
		{name: "double slash", give: "https://www.strava.com//routes/1", want: source.ReasonPath},
		{name: "parameter", give: "https://www.strava.com/routes/1;jsessionid=x", want: source.ReasonPath},
		{name: "more path", give: "https://www.strava.com/routes/1/export_gpx", want: source.ReasonPath},
		{name: "negative id", give: "https://www.strava.com/routes/-1", want: source.ReasonPath},
		{name: "exponent id", give: "https://www.strava.com/routes/1e3", want: source.ReasonPath},
		{name: "hex id", give: "https://www.strava.com/routes/0x1", want: source.ReasonPath},
		{name: "fullwidth digit id", give: "https://www.strava.com/routes/\uFF11", want: source.ReasonPath},
		{name: "twenty digits", give: "https://www.strava.com/routes/12345678901234567890", want: source.ReasonPath},
		{name: "no id", give: "https://www.strava.com/routes/", want: source.ReasonPath},
		{name: "another provider's path", give: "https://www.strava.com/tour/1", want: source.ReasonPath},

		// Backslashes, which browsers and some parsers read as slashes.
		{name: "backslash before an at sign", give: "https://www.strava.com\\@127.0.0.1/routes/1", want: source.ReasonCharacters},
		{name: "backslashes for slashes", give: "https:\\\\www.strava.com\\routes\\1", want: source.ReasonCharacters},
		{name: "backslash traversal", give: "https://www.strava.com/routes/1\\..\\..\\x", want: source.ReasonCharacters},
		{name: "backslash in the query", give: "https://www.strava.com/routes/1?\\x", want: source.ReasonCharacters},

		// Control characters, white space, invisible characters.
		{name: "NUL in the query", give: "https://www.strava.com/routes/1?\x00", want: source.ReasonCharacters},
		{name: "NUL first", give: "\x00https://www.strava.com/routes/1", want: source.ReasonCharacters},
		{name: "header injection", give: "https://www.strava.com/routes/1#\r\nHost: x", want: source.ReasonCharacters},
		{name: "second line", give: "https://www.komoot.com/tour/1\nhttps://evil.test/", want: source.ReasonCharacters},
		{name: "space in the path", give: "https://www.strava.com/ro utes/1", want: source.ReasonCharacters},
		{name: "space in the query", give: "https://www.strava.com/routes/1?a b", want: source.ReasonCharacters},
		{name: "tab in the host", give: "https://www.str\tava.com/routes/1", want: source.ReasonCharacters},
		{name: "bidi override", give: "https://www.strava.com/routes/1?\u202E", want: source.ReasonCharacters},
		{name: "zero-width space in the host", give: "https://www.\u200Bstrava.com/routes/1", want: source.ReasonCharacters},
		{name: "invalid UTF-8", give: "https://www.strava.com/routes/1?\xff", want: source.ReasonCharacters},
		{name: "DEL", give: "https://www.strava.com/routes/1?\x7f", want: source.ReasonCharacters},

		// Schemes.
		{name: "plain http", give: "http://www.strava.com/routes/1", want: source.ReasonScheme},
		{name: "scheme in upper case", give: "HTTPS://www.strava.com/routes/1", want: source.ReasonScheme},
		{name: "scheme-relative", give: "//www.strava.com/routes/1", want: source.ReasonScheme},
		{name: "one slash", give: "https:/www.strava.com/routes/1", want: source.ReasonScheme},
		{name: "no slash", give: "https:www.strava.com/routes/1", want: source.ReasonScheme},
		{name: "no scheme", give: "www.strava.com/routes/1", want: source.ReasonScheme},
		{name: "file", give: "file:///etc/passwd", want: source.ReasonScheme},
		{name: "gopher", give: "gopher://127.0.0.1:6379/_FLUSHALL", want: source.ReasonScheme},
		{name: "javascript", give: "javascript:alert(1)//https://www.strava.com/routes/1", want: source.ReasonScheme},
		{name: "nested URL", give: "https://evil.test/https://www.komoot.com/tour/1", want: source.ReasonHost},
		{name: "empty", give: "", want: source.ReasonScheme},

		{name: "too long", give: "https://www.strava.com/routes/1?" + strings.Repeat("a", 2048), want: source.ReasonTooLong},
	}
	f, p := setup(t, source.Options{})
	t.Run("group", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				_, err := source.Recognise(tt.give)

				require.ErrorIs(t, err, source.ErrUnsupported)
				var unsupported *source.UnsupportedError
				require.ErrorAs(t, err, &unsupported)
				assert.Equal(t, tt.want, unsupported.Reason)

				_, err = f.Fetch(context.Background(), tt.give)
				require.ErrorIs(t, err, source.ErrFetchFailed)
				require.ErrorIs(t, err, source.ErrUnsupported)
				if tt.give != "" {
					assert.NotContains(t, err.Error(), tt.give, "the message must not echo the URL")
				}
			})
		}
	})
	assert.Empty(t, p.paths(), "a refused URL was requested")
}

// TestRecogniseNormalisesToTheFixedPath runs the forms that are accepted:
// whatever else they carry (locale, query, fragment, trailing slash,
// surrounding spaces, no www), only the id travels, into the provider's
// fixed path on its configured base URL.
func TestRecogniseNormalisesToTheFixedPath(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		give     string
		wantType string
		wantID   string
		wantPath string // the one path requested
	}{
		{name: "strava", give: "https://www.strava.com/routes/42", wantType: source.TypeStravaRoute, wantID: "42", wantPath: "/routes/42/export_gpx"},
		{name: "strava without www", give: "https://strava.com/routes/42", wantType: source.TypeStravaRoute, wantID: "42", wantPath: "/routes/42/export_gpx"},
		{name: "traversal in the query", give: "https://www.strava.com/routes/42?next=../../admin", wantType: source.TypeStravaRoute, wantID: "42", wantPath: "/routes/42/export_gpx"},
		{name: "another host in the query", give: "https://www.strava.com/routes/42?u=http://127.0.0.1:6379/", wantType: source.TypeStravaRoute, wantID: "42", wantPath: "/routes/42/export_gpx"},
		{name: "at sign in the query", give: "https://www.strava.com/routes/42?@127.0.0.1", wantType: source.TypeStravaRoute, wantID: "42", wantPath: "/routes/42/export_gpx"},
		{name: "encoding in the query", give: "https://www.strava.com/routes/42?x=%2F..%2F%00", wantType: source.TypeStravaRoute, wantID: "42", wantPath: "/routes/42/export_gpx"},
		{name: "fragment", give: "https://www.strava.com/routes/42#@127.0.0.1/x", wantType: source.TypeStravaRoute, wantID: "42", wantPath: "/routes/42/export_gpx"},
		{name: "trailing slash", give: "https://www.strava.com/routes/42/", wantType: source.TypeStravaRoute, wantID: "42", wantPath: "/routes/42/export_gpx"},
		{name: "pasted with spaces and a line break", give: "  https://www.strava.com/routes/42\r\n", wantType: source.TypeStravaRoute, wantID: "42", wantPath: "/routes/42/export_gpx"},
		{name: "leading zeros kept as digits", give: "https://www.strava.com/routes/0042", wantType: source.TypeStravaRoute, wantID: "0042", wantPath: "/routes/0042/export_gpx"},
		{name: "komoot tour with locale", give: "https://www.komoot.com/de-de/tour/42?ref=wtd&share_token=abc", wantType: source.TypeKomootTour, wantID: "42", wantPath: "/tour/42"},
		{name: "komoot tour", give: "https://komoot.com/tour/42", wantType: source.TypeKomootTour, wantID: "42", wantPath: "/tour/42"},
		{name: "komoot collection", give: "https://www.komoot.com/collection/42#map", wantType: source.TypeKomootCollection, wantID: "42", wantPath: "/collection/42"},
		{name: "ridewithgps", give: "https://ridewithgps.com/routes/42?privacy_code=x", wantType: source.TypeRideWithGPS, wantID: "42", wantPath: "/routes/42.json"},
		{name: "ridewithgps with www", give: "https://www.ridewithgps.com/routes/42", wantType: source.TypeRideWithGPS, wantID: "42", wantPath: "/routes/42.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, p := setup(t, source.Options{})

			ref, err := source.Recognise(tt.give)
			require.NoError(t, err)
			assert.Equal(t, source.Ref{SourceType: tt.wantType, ID: tt.wantID}, ref)

			// The fake providers answer 404 to every path: the request is
			// what is checked here, not the route.
			_, err = f.Fetch(context.Background(), tt.give)
			var status *outbound.StatusError
			require.ErrorAs(t, err, &status)
			assert.Equal(t, http.StatusNotFound, status.Code)
			assert.Equal(t, []string{tt.wantPath}, p.paths(), "only the fixed path is requested")
		})
	}
}
