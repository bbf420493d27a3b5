package routing

import (
	"math"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/text"
)

// FuzzDecodeBRouter feeds any answer to the BRouter reader: nothing
// panics, an accepted route is a line of two coordinates or more with
// finite totals, and an error body's message follows the text rule.
func FuzzDecodeBRouter(f *testing.F) {
	for _, seed := range []string{
		`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"track-length":"7079","filtered ascend":"120","total-time":"1500"},"geometry":{"type":"LineString","coordinates":[[6.0,45.0,210.5],[6.1,45.1]]}}]}`,
		`{"features":[{"properties":{"track-length":7079,"total-time":null},"geometry":{"type":"LineString","coordinates":[[6,45],[6,46]]}}]}`,
		`{"features":[{"geometry":{"type":"LineString","coordinates":[[6,45],[45,600]]}}]}`,
		`{"features":[{"properties":{"track-length":"1e400"},"geometry":{"type":"LineString","coordinates":[[6,45],[6,46]]}}]}`,
		"from-position not mapped\n\tat btools",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msg := engineMessage(body)
		require.LessOrEqual(t, utf8.RuneCountInString(msg), text.MaxMessage)
		require.Equal(t, text.Clean(msg, text.MaxMessage), msg)

		res, err := decodeBRouter(body)
		if err != nil {
			return
		}
		require.GreaterOrEqual(t, len(res.Coordinates), 2)
		for _, p := range res.Coordinates {
			require.True(t, validCoordinate(p.Lat, p.Lon), "point %+v", p)
			require.False(t, math.IsNaN(p.Ele) || math.IsInf(p.Ele, 0), "elevation %v", p.Ele)
		}
		require.False(t, math.IsNaN(res.Distance) || math.IsInf(res.Distance, 0))
		require.False(t, math.IsNaN(res.ElevationGain) || math.IsInf(res.ElevationGain, 0))
	})
}
