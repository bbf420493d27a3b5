package export_test

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/routefixture"
)

// gpxDoc is the part of a GPX 1.1 document the tests read; the namespace
// in XMLName makes decoding fail on any other.
type gpxDoc struct {
	XMLName  xml.Name `xml:"http://www.topografix.com/GPX/1/1 gpx"`
	Version  string   `xml:"version,attr"`
	Creator  string   `xml:"creator,attr"`
	Metadata *struct {
		Name string `xml:"name"`
		Link *struct {
			Href string `xml:"href,attr"`
		} `xml:"link"`
	} `xml:"metadata"`
	Waypoints []struct {
		Lat  float64 `xml:"lat,attr"`
		Lon  float64 `xml:"lon,attr"`
		Name string  `xml:"name"`
		Sym  string  `xml:"sym"`
		Type string  `xml:"type"`
	} `xml:"wpt"`
	Tracks []struct {
		Name     string `xml:"name"`
		Segments []struct {
			Points []struct{} `xml:"trkpt"`
		} `xml:"trkseg"`
	} `xml:"trk"`
}

func writeGPX(t *testing.T, tr export.Track) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, export.WriteGPX(&buf, tr))
	return buf.Bytes()
}

func decodeGPX(t *testing.T, b []byte) gpxDoc {
	t.Helper()
	var doc gpxDoc
	require.NoError(t, xml.Unmarshal(b, &doc))
	return doc
}

func TestWriteGPXRoundTrip(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give []geo.Point
	}{
		{name: "realistic stage", give: routefixture.Route(3, 5_000, 20)},
		{name: "extreme values", give: []geo.Point{{Lat: -90, Lon: -180, Ele: -430.5}, {Lat: 90, Lon: 180, Ele: 8848.86}, {Lat: 1e-7, Lon: -1e-7}}},
		{name: "rest day", give: []geo.Point{{Lat: 45.0556, Lon: 5.6717, Ele: 310}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := stage()
			tr.Points = tt.give

			got, err := gpx.Parse(bytes.NewReader(writeGPX(t, tr)))
			require.NoError(t, err)
			assert.Equal(t, tt.give, got.Points, "exact values survive the round trip")
			assert.Equal(t, tr.Name, got.Title, "the track name, not a waypoint's")
			assert.Equal(t, []int{0}, got.TrackStarts, "one track")
		})
	}
}

func TestWriteGPXDocument(t *testing.T) {
	t.Parallel()
	tr := stage()
	tr.Link = "https://www.komoot.com/tour/123?ref=a&b=c"

	doc := decodeGPX(t, writeGPX(t, tr))

	assert.Equal(t, "1.1", doc.Version)
	assert.Equal(t, "Cairn", doc.Creator)
	require.NotNil(t, doc.Metadata)
	assert.Equal(t, tr.Name, doc.Metadata.Name)
	require.NotNil(t, doc.Metadata.Link)
	assert.Equal(t, tr.Link, doc.Metadata.Link.Href)

	require.Len(t, doc.Waypoints, len(tr.Waypoints))
	wantSyms := []string{"Shopping Center", "Drinking Water", "Medical Facility", "Scenic Area", "Campground"}
	for i, w := range doc.Waypoints {
		assert.Equal(t, tr.Waypoints[i].Name, w.Name)
		assert.Equal(t, tr.Waypoints[i].Lat, w.Lat)
		assert.Equal(t, tr.Waypoints[i].Lon, w.Lon)
		assert.Equal(t, wantSyms[i], w.Sym)
		assert.Equal(t, tr.Waypoints[i].Category, w.Type)
	}

	require.Len(t, doc.Tracks, 1)
	assert.Equal(t, tr.Name, doc.Tracks[0].Name)
	require.Len(t, doc.Tracks[0].Segments, 1)
	assert.Len(t, doc.Tracks[0].Segments[0].Points, len(tr.Points))
}

func TestWriteGPXElementOrder(t *testing.T) {
	t.Parallel()
	tr := stage()
	tr.Link = "https://example.org/trip"
	tr.Points = append(tr.Points, geo.Point{Lat: 1e-7, Lon: -1e-7, Ele: 1e-9})
	out := string(writeGPX(t, tr))

	// GPX 1.1 is a sequence schema: metadata, wpt, trk; in metadata, name
	// before link; in wpt, name, sym, type.
	assertInOrder(t, out, "<metadata>", "<name>", "<link ", "</metadata>", "<wpt ", "<trk>", "<trkseg>", "</gpx>")
	wpt := out[strings.Index(out, "<wpt "):strings.Index(out, "</wpt>")]
	assertInOrder(t, wpt, "<name>", "<sym>", "<type>")
	assert.Contains(t, out, `<trkpt lat="0.0000001" lon="-0.0000001"><ele>0.000000001</ele>`, "no exponent in an xsd:decimal")
}

func TestWriteGPXWithoutLinkOrWaypoints(t *testing.T) {
	t.Parallel()
	tr := stage()
	tr.Link, tr.Waypoints = "", nil

	out := writeGPX(t, tr)
	doc := decodeGPX(t, out)

	require.NotNil(t, doc.Metadata)
	assert.Nil(t, doc.Metadata.Link, "a stage export has no link")
	assert.Empty(t, doc.Waypoints)
	assert.NotContains(t, string(out), "<link")
}

func TestWriteGPXEscapesNames(t *testing.T) {
	t.Parallel()
	hostile := `</name></trk><script>alert("x")</script>&amp; ' ` + "\x00\x1b"
	tr := export.Track{
		Name:      hostile,
		Link:      `https://example.org/?a="><x/>`,
		Points:    []geo.Point{{Lat: 45, Lon: 6}},
		Waypoints: []export.Waypoint{{Name: hostile, Lat: 45, Lon: 6, Category: `<hotel>`}},
	}
	out := writeGPX(t, tr)

	assert.NotContains(t, string(out), "<script>")
	doc := decodeGPX(t, out) // well-formed, strict decoder
	// Runes XML cannot carry become U+FFFD; the rest comes back as given.
	want := strings.NewReplacer("\x00", "\uFFFD", "\x1b", "\uFFFD").Replace(hostile)
	assert.Equal(t, want, doc.Metadata.Name)
	assert.Equal(t, want, doc.Tracks[0].Name)
	assert.Equal(t, want, doc.Waypoints[0].Name)
	assert.Equal(t, "<hotel>", doc.Waypoints[0].Type)
	assert.Equal(t, "Flag, Blue", doc.Waypoints[0].Sym)
	assert.Equal(t, tr.Link, doc.Metadata.Link.Href)

	got, err := gpx.Parse(bytes.NewReader(out))
	require.NoError(t, err, "the hardened parser accepts it too")
	assert.Equal(t, want, got.Title)
}

func TestWriteGPXRefuses(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give func(*export.Track)
		want error
	}{
		{name: "no points", give: func(tr *export.Track) { tr.Points = []geo.Point{} }, want: export.ErrNoPoints},
		{name: "longitude out of range", give: func(tr *export.Track) { tr.Points[0].Lon = -181 }, want: export.ErrInvalidCoordinate},
		{name: "infinite elevation", give: func(tr *export.Track) { tr.Points[3].Ele = math.Inf(-1) }, want: export.ErrInvalidCoordinate},
		{name: "waypoint latitude NaN", give: func(tr *export.Track) { tr.Waypoints[4].Lat = math.NaN() }, want: export.ErrInvalidCoordinate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := stage()
			tt.give(&tr)
			var buf bytes.Buffer
			assert.ErrorIs(t, export.WriteGPX(&buf, tr), tt.want)
			assert.Zero(t, buf.Len(), "nothing written")
		})
	}
}

func TestWriteGPXReportsTheWriterError(t *testing.T) {
	t.Parallel()
	tr := stage()
	tr.Points = routefixture.Route(5, 1_000, 20) // more than the buffer holds
	assert.ErrorIs(t, export.WriteGPX(failingWriter{}, tr), errDiskFull)
}

// assertInOrder checks that each of parts occurs in s after the previous.
func assertInOrder(t *testing.T, s string, parts ...string) {
	t.Helper()
	at := 0
	for _, p := range parts {
		i := strings.Index(s[at:], p)
		if !assert.GreaterOrEqual(t, i, 0, "%q missing or out of order", p) {
			return
		}
		at += i + len(p)
	}
}
