package export_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/muktihari/fit/decoder"
	"github.com/muktihari/fit/profile/filedef"
	"github.com/muktihari/fit/profile/typedef"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/text"
)

// fuzzTrack builds a Track from fuzzed values: one or two points and at
// most one waypoint. Finite numbers are folded into a range a little wider
// than the valid one, so that both valid and invalid coordinates come up
// often; NaN and infinities pass as they are. Elevations fold within
// ±10 km, on both sides of the physical range the writers keep to.
func fuzzTrack(name, wpName, category string, lat1, lon1, ele1, lat2, lon2, ele2, wlat, wlon float64, shape uint8) export.Track {
	fold := func(v, m float64) float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return v
		}
		return math.Mod(v, m)
	}
	t := export.Track{Name: name, Points: []geo.Point{{Lat: fold(lat1, 100), Lon: fold(lon1, 200), Ele: fold(ele1, 10_000)}}}
	if shape&1 != 0 {
		t.Points = append(t.Points, geo.Point{Lat: fold(lat2, 100), Lon: fold(lon2, 200), Ele: fold(ele2, 10_000)})
	}
	if shape&2 != 0 {
		t.Waypoints = []export.Waypoint{{Name: wpName, Lat: fold(wlat, 100), Lon: fold(wlon, 200), Category: category}}
	}
	return t
}

// valid tells whether t is what the writers accept.
func valid(t export.Track) bool {
	ok := func(lat, lon float64) bool { return lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180 }
	for _, p := range t.Points {
		if !ok(p.Lat, p.Lon) || math.IsNaN(p.Ele) || p.Ele < geo.MinElevation || p.Ele > geo.MaxElevation {
			return false
		}
	}
	for _, w := range t.Waypoints {
		if !ok(w.Lat, w.Lon) {
			return false
		}
	}
	return len(t.Points) > 0
}

// xmlChars is s as an XML document can hold it: invalid UTF-8 and the
// runes outside XML's character range become U+FFFD, as encoding/xml
// escapes them.
func xmlChars(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				b.WriteRune(utf8.RuneError)
				continue
			}
		}
		if r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF {
			b.WriteRune(r)
		} else {
			b.WriteRune(utf8.RuneError)
		}
	}
	return b.String()
}

func addTrackSeeds(f *testing.F) {
	f.Add("Grenoble → La Mure", "Boulangerie du Centre", "bakery", 45.1885, 5.7245, 212.0, 44.9019, 5.7856, 880.6, 45.0561, 5.6722, uint8(3))
	f.Add("", "", "", 0.0, 0.0, 0.0, -90.0, 180.0, -500.0, 90.0, -180.0, uint8(3))
	f.Add("<script>&amp;\"'</script>", "]]><x/>", "camp_site", 1e-7, -1e-7, 1e-300, 5e-324, math.Copysign(0, -1), 0.0, 1.0, 1.0, uint8(3))
	f.Add("Étape\x00\t\r\n\u202E\uFFFE\xff", "Gîte\x01", "DRINKING_WATER ", 45.0, 6.0, 8848.86, 45.0, 6.0, -430.5, 45.0, 6.0, uint8(2))
	f.Add("nan", "inf", "x", math.NaN(), 0.0, math.Inf(1), 0.0, 0.0, 0.0, 95.0, 0.0, uint8(3))
	f.Add(strings.Repeat("é", 300), strings.Repeat("😀", 20), "pharmacy", 89.99999999, 179.99999999, 12_000.0, -89.5, -179.5, -600.0, 0.0, 0.0, uint8(1))
}

// FuzzWriteGPX writes fuzzed tracks and reads them back with the project's
// GPX parser and with encoding/xml: the writer refuses exactly the invalid
// coordinates, never lets a name add markup, and every point comes back
// exact; the track name comes back under the parser's text rule.
func FuzzWriteGPX(f *testing.F) {
	addTrackSeeds(f)
	f.Fuzz(func(t *testing.T, name, wpName, category string, lat1, lon1, ele1, lat2, lon2, ele2, wlat, wlon float64, shape uint8) {
		tr := fuzzTrack(name, wpName, category, lat1, lon1, ele1, lat2, lon2, ele2, wlat, wlon, shape)
		var buf bytes.Buffer
		err := export.WriteGPX(&buf, tr)
		if !valid(tr) {
			require.ErrorIs(t, err, export.ErrInvalidCoordinate)
			require.Zero(t, buf.Len(), "nothing is written before a refusal")
			return
		}
		require.NoError(t, err)

		got, err := gpx.Parse(bytes.NewReader(buf.Bytes()))
		require.NoError(t, err, "the project's parser refuses the writer's file:\n%s", buf.Bytes())
		require.Equal(t, tr.Points, got.Points)
		require.Equal(t, []int{0}, got.TrackStarts)
		require.Equal(t, text.Clean(xmlChars(tr.Name), text.MaxTitle), got.Title)

		doc := decodeGPX(t, buf.Bytes())
		require.Len(t, doc.Tracks, 1, "a name added markup")
		require.Len(t, doc.Waypoints, len(tr.Waypoints), "a name added markup")
		for i, w := range tr.Waypoints {
			require.Equal(t, xmlChars(w.Name), doc.Waypoints[i].Name)
			require.Equal(t, xmlChars(w.Category), doc.Waypoints[i].Type)
			require.Equal(t, export.Symbol(w.Category), doc.Waypoints[i].Sym)
			require.Equal(t, w.Lat, doc.Waypoints[i].Lat)
			require.Equal(t, w.Lon, doc.Waypoints[i].Lon)
		}
	})
}

// FuzzWriteFIT writes fuzzed tracks and reads them back with the project's
// FIT reader, which checks the framing and both CRCs, and with the
// muktihari/fit decoder, which checks the profile: positions within a
// semicircle, altitudes clamped to the field, names under the text rule
// and cut to 15 bytes on a rune boundary.
func FuzzWriteFIT(f *testing.F) {
	addTrackSeeds(f)
	f.Fuzz(func(t *testing.T, name, wpName, category string, lat1, lon1, ele1, lat2, lon2, ele2, wlat, wlon float64, shape uint8) {
		tr := fuzzTrack(name, wpName, category, lat1, lon1, ele1, lat2, lon2, ele2, wlat, wlon, shape)
		var buf bytes.Buffer
		err := export.WriteFIT(&buf, tr)
		if !valid(tr) {
			require.ErrorIs(t, err, export.ErrInvalidCoordinate)
			require.Zero(t, buf.Len(), "nothing is written before a refusal")
			return
		}
		require.NoError(t, err)

		raw, err := readFIT(buf.Bytes())
		require.NoError(t, err)
		require.Len(t, raw.ofGlobal(mesgRecord), len(tr.Points))
		rawCourse := raw.ofGlobal(mesgCourse)
		require.Len(t, rawCourse, 1)
		requireFITName(t, tr.Name, rawCourse[0].str(5))
		rawPoints := raw.ofGlobal(mesgCoursePoint)
		require.Len(t, rawPoints, len(tr.Waypoints))

		fit, err := decoder.New(bytes.NewReader(buf.Bytes())).Decode()
		require.NoError(t, err)
		course := filedef.NewCourse(fit.Messages...)
		require.NotNil(t, course.Course)
		// The decoder drops U+FFFD as it reads a string.
		require.Equal(t, strings.ReplaceAll(rawCourse[0].str(5), "\uFFFD", ""), course.Course.Name)

		require.Len(t, course.Records, len(tr.Points))
		for i, p := range tr.Points {
			r := course.Records[i]
			requireDegrees(t, p.Lat, r.PositionLat, false)
			requireDegrees(t, p.Lon, r.PositionLong, true)
			// The altitude field as written; the decoder's derived
			// enhanced_altitude truncates instead of rounding.
			want := math.Min(math.Max(p.Ele, -500), 0xFFFE/5.0-500)
			require.InDelta(t, want, r.AltitudeScaled(), 0.1+1e-9, "altitude of %v m", p.Ele)
		}
		require.Len(t, course.CoursePoints, len(tr.Waypoints))
		for i, w := range tr.Waypoints {
			cp := course.CoursePoints[i]
			requireDegrees(t, w.Lat, cp.PositionLat, false)
			requireDegrees(t, w.Lon, cp.PositionLong, true)
			require.Equal(t, typedef.CoursePoint(export.CoursePointTypeOf(w.Category)), cp.Type)
			requireFITName(t, w.Name, rawPoints[i].str(6))
			require.Equal(t, strings.ReplaceAll(rawPoints[i].str(6), "\uFFFD", ""), cp.Name)
		}
		require.NotNil(t, course.Lap)
		require.Equal(t, course.Records[len(course.Records)-1].Distance, course.Lap.TotalDistance)
	})
}

// requireFITName checks a decoded FIT name against the name written: the
// start of the name under the text rule, at most 15 bytes, cut no shorter
// than a rune and a space below that.
func requireFITName(t *testing.T, written, got string) {
	t.Helper()
	clean := text.Clean(written, 15)
	require.True(t, utf8.ValidString(got), "%q", got)
	require.LessOrEqual(t, len(got), 15)
	require.True(t, strings.HasPrefix(clean, got), "%q is not the start of %q", got, clean)
	if len(clean) <= 15 {
		require.Equal(t, clean, got)
		return
	}
	require.Greater(t, len(got)+utf8.UTFMax+1, 15, "%q cut shorter than needed from %q", got, clean)
}

// requireDegrees checks that semicircles sc encode deg to within one
// semicircle; a longitude may wrap, +180° being written as −180°.
func requireDegrees(t *testing.T, deg float64, sc int32, wraps bool) {
	t.Helper()
	back := float64(sc) * 180 / (1 << 31)
	d := math.Abs(back - deg)
	if wraps && d > 180 {
		d = 360 - d
	}
	require.LessOrEqual(t, d, 180.0/(1<<31), "%v° came back as %v°", deg, back)
}
