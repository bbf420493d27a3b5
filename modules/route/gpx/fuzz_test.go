package gpx_test

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/text"
)

// fuzzMaxBytes is the parser's limit under fuzzing: small, so that the
// limit itself is reached.
const fuzzMaxBytes = 1 << 16

// minPointBytes is the shortest markup of a track point,
// `<trkpt lat="0"lon="0"/>`: no file yields more points than its size
// allows, so what Parse keeps grows with the input and no faster.
const minPointBytes = len(`<trkpt lat="0"lon="0"/>`)

// FuzzParse feeds any bytes to the parser. Whatever it accepts holds only
// valid points (latitude within ±90, longitude within ±180, finite
// elevation, at least one), consistent track starts and a clean, bounded
// title; what it keeps is bounded by the input, and the input by its limit.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		doc(`<trk><name>Col du Galibier</name><trkseg><trkpt lat="45.064" lon="6.408"><ele>2642</ele></trkpt></trkseg></trk>`),
		doc(`<trk><trkseg><trkpt lat="1" lon="2"/><trkpt lat="-90" lon="180"><ele> -12.5 </ele></trkpt></trkseg></trk><trk><trkseg><trkpt lat="3" lon="4"/></trkseg></trk>`),
		doc(`<trk><name> a &amp; b &#x9; <![CDATA[c]]> </name><trkseg><trkpt lon="1e1" lat="0x1p-2"/></trkseg></trk>`),
		doc(`<trk><trkseg><trkpt lat="91" lon="0"/></trkseg></trk>`),
		doc(`<trk><trkseg><trkpt lat="NaN" lon="Inf"><ele>1e400</ele></trkpt></trkseg></trk>`),
		doc(`<trk><trkseg><trkpt lat="1" lon="1"><ele>NaN</ele></trkpt></trkseg></trk>`),
		doc(`<wpt lat="1" lon="1"><name>w</name></wpt><rte><rtept lat="1" lon="1"/></rte>`),
		`<!DOCTYPE gpx [<!ENTITY x "y">]><gpx><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>`,
		`<?xml version="1.0" encoding="ISO-8859-1"?><gpx/>`,
		`<g:gpx xmlns:g="http://www.topografix.com/GPX/1/1"><g:trk><g:trkseg><g:trkpt lat="1" lon="1"/></g:trkseg></g:trk></g:gpx>`,
		`<gpx><trk><trkseg><trkpt lat="1"lon="1"/></trkseg></trk></gpx>`,
		`not xml at all`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := gpx.Parser{MaxBytes: fuzzMaxBytes}.Parse(bytes.NewReader(data))
		if err != nil {
			var syntax *gpx.SyntaxError
			known := errors.Is(err, gpx.ErrTooLarge) || errors.Is(err, gpx.ErrDoctype) ||
				errors.Is(err, gpx.ErrNotGPX) || errors.Is(err, gpx.ErrNoTrackPoints) || errors.As(err, &syntax)
			require.True(t, known, "unexpected error %v", err)
			if syntax != nil {
				require.LessOrEqual(t, len(syntax.Reason), 120+len("…"), "a reason is bounded")
			}
			return
		}

		require.LessOrEqual(t, len(data), fuzzMaxBytes, "a stream over the limit was accepted")
		require.NotEmpty(t, got.Points)
		require.LessOrEqual(t, len(got.Points)*minPointBytes, len(data), "more points than the input can hold")
		for i, p := range got.Points {
			require.True(t, p.Lat >= -90 && p.Lat <= 90, "point %d latitude %v", i, p.Lat)
			require.True(t, p.Lon >= -180 && p.Lon <= 180, "point %d longitude %v", i, p.Lon)
			require.True(t, p.Ele >= geo.MinElevation && p.Ele <= geo.MaxElevation, "point %d elevation %v", i, p.Ele)
		}
		require.NotEmpty(t, got.TrackStarts)
		require.Zero(t, got.TrackStarts[0])
		for i := 1; i < len(got.TrackStarts); i++ {
			require.Less(t, got.TrackStarts[i-1], got.TrackStarts[i], "track starts out of order")
		}
		require.Less(t, got.TrackStarts[len(got.TrackStarts)-1], len(got.Points))
		require.LessOrEqual(t, utf8.RuneCountInString(got.Title), text.MaxTitle)
		require.Equal(t, text.Clean(got.Title, text.MaxTitle), got.Title, "the title does not follow the text rule")
	})
}
