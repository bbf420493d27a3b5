package source_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/source"
)

// hostsOf are the host names each source type may be recognised on.
var hostsOf = map[string][]string{
	source.TypeKomootTour:       {"komoot.com", "www.komoot.com"},
	source.TypeKomootCollection: {"komoot.com", "www.komoot.com"},
	source.TypeStravaRoute:      {"strava.com", "www.strava.com"},
	source.TypeRideWithGPS:      {"ridewithgps.com", "www.ridewithgps.com"},
}

// FuzzRecognise feeds any text to Recognise. What it accepts has an id of
// 1 to 19 ASCII digits, is an https URL without credentials or port on a
// host of the recognised provider, with a path that ends in the id and
// holds no encoding nor dot segment; what it refuses, it refuses with a
// reason.
func FuzzRecognise(f *testing.F) {
	for _, seed := range []string{
		"https://www.komoot.com/de-de/tour/123456?ref=wtd",
		"https://komoot.com/collection/987#map",
		"https://www.strava.com/routes/3141592653/",
		"https://ridewithgps.com/routes/456?privacy_code=x",
		"  https://strava.com/routes/5\n",
		"https://www.strava.com@127.0.0.1/routes/1",
		"https://www.strava.com:443/routes/1",
		"https://www.strava.com./routes/1",
		"https://www.strava.com/routes/%31",
		"https://www.strava.com/routes/1/../../x",
		"https://www.strava.com\\@127.0.0.1/routes/1",
		"https://[::ffff:127.0.0.1]/routes/1",
		"https://2130706433/routes/1",
		"https://www.\u017Ftrava.com/routes/1",
		"https://www.strava.com/routes/1?\x00",
		"https://www.strava.com/routes/\uFF11",
		"http://www.strava.com/routes/1",
		"",
	} {
		f.Add(seed)
	}
	reasons := map[source.Reason]bool{
		source.ReasonTooLong: true, source.ReasonCharacters: true, source.ReasonScheme: true,
		source.ReasonUserinfo: true, source.ReasonEncoding: true, source.ReasonMalformed: true,
		source.ReasonHost: true, source.ReasonPort: true, source.ReasonPath: true,
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, err := source.Recognise(s)
		if err != nil {
			require.ErrorIs(t, err, source.ErrUnsupported)
			var unsupported *source.UnsupportedError
			require.True(t, errors.As(err, &unsupported), "%T", err)
			require.True(t, reasons[unsupported.Reason], "reason %q", unsupported.Reason)
			require.Equal(t, source.Ref{}, ref)
			return
		}

		require.NotEmpty(t, ref.ID)
		require.LessOrEqual(t, len(ref.ID), 19)
		require.Empty(t, strings.Trim(ref.ID, "0123456789"), "id %q is not digits", ref.ID)
		hosts, known := hostsOf[ref.SourceType]
		require.True(t, known, "source type %q", ref.SourceType)

		u, perr := url.Parse(strings.TrimSpace(s))
		require.NoError(t, perr, "an accepted URL must parse")
		require.Equal(t, "https", u.Scheme)
		require.Nil(t, u.User)
		require.Empty(t, u.Port())
		require.False(t, strings.HasSuffix(u.Host, ":"), "empty port")
		require.Contains(t, hosts, u.Hostname())
		require.Empty(t, u.RawPath, "an encoded path was accepted")
		require.NotContains(t, u.Path, "..")
		require.NotContains(t, u.Path, "%")
		require.True(t, strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/"+ref.ID), "path %q does not end in the id", u.Path)
		require.NotContains(t, s, "\\")
		require.NotContains(t, strings.TrimSpace(s), "\x00")

		again, err := source.Recognise(u.String())
		require.NoError(t, err, "the parsed URL is recognised again")
		require.Equal(t, ref, again)
	})
}
