package gpx_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn/modules/route/geo"
	"cairn/modules/route/gpx"
	"cairn/modules/route/routefixture"
)

func TestWriteRoundTrip(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give []geo.Point
		want string // title
	}{
		{name: "realistic route", give: routefixture.Route(11, 500, 20), want: "Vercors <Tour> & \"co\""},
		{name: "extreme values", give: []geo.Point{{Lat: -90, Lon: -180, Ele: -430.5}, {Lat: 90, Lon: 180, Ele: 8848.86}, {Lat: 1e-7, Lon: -1e-7}}, want: "Edges"},
		{name: "unnamed", give: []geo.Point{{Lat: 45, Lon: 6, Ele: 1}}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			require.NoError(t, gpx.Write(&buf, tt.want, tt.give))

			got, err := gpx.Parse(&buf)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Title)
			assert.Equal(t, tt.give, got.Points, "exact values survive the round trip")
		})
	}
}

func TestWriteIsGPX11ByCairn(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	require.NoError(t, gpx.Write(&buf, "Day 1", []geo.Point{{Lat: 45, Lon: 6, Ele: 250}}))

	var doc struct {
		XMLName xml.Name `xml:"http://www.topografix.com/GPX/1/1 gpx"`
		Version string   `xml:"version,attr"`
		Creator string   `xml:"creator,attr"`
		Tracks  []struct {
			Name     string `xml:"name"`
			Segments []struct {
				Points []struct {
					Lat float64 `xml:"lat,attr"`
					Lon float64 `xml:"lon,attr"`
					Ele float64 `xml:"ele"`
				} `xml:"trkpt"`
			} `xml:"trkseg"`
		} `xml:"trk"`
	}
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc))
	assert.Equal(t, "1.1", doc.Version)
	assert.Equal(t, "Cairn", doc.Creator)
	require.Len(t, doc.Tracks, 1)
	assert.Equal(t, "Day 1", doc.Tracks[0].Name)
	require.Len(t, doc.Tracks[0].Segments, 1)
	require.Len(t, doc.Tracks[0].Segments[0].Points, 1)
	assert.Equal(t, 250.0, doc.Tracks[0].Segments[0].Points[0].Ele)
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

func TestWriteReportsWriterErrors(t *testing.T) {
	t.Parallel()
	full := errors.New("disk full")
	err := gpx.Write(failingWriter{full}, "x", routefixture.Route(1, 1000, 20))
	require.ErrorIs(t, err, full)
}

func BenchmarkWriteLong(b *testing.B) {
	points := routefixture.Long()
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := gpx.Write(&buf, "Long", points); err != nil {
			b.Fatal(err)
		}
	}
}
