package gpx_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/routefixture"
)

// doc wraps track content in a GPX 1.1 document.
func doc(body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">` + body + "</gpx>\n"
}

func TestParse(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give string
		want gpx.Route
	}{
		{
			name: "one point",
			give: doc(`<trk><name>Col du Galibier</name><trkseg><trkpt lat="45.064" lon="6.408"><ele>2642</ele></trkpt></trkseg></trk>`),
			want: gpx.Route{Title: "Col du Galibier", Points: []geo.Point{{Lat: 45.064, Lon: 6.408, Ele: 2642}}, TrackStarts: []int{0}},
		},
		{
			name: "elevation missing or empty is 0",
			give: doc(`<trk><trkseg><trkpt lat="1" lon="2"/><trkpt lat="3" lon="4"><ele> </ele></trkpt></trkseg></trk>`),
			want: gpx.Route{Points: []geo.Point{{Lat: 1, Lon: 2}, {Lat: 3, Lon: 4}}, TrackStarts: []int{0}},
		},
		{
			name: "spaces around numbers and attributes in any order",
			give: doc(`<trk><trkseg><trkpt lon=" -1.5 " lat="-33.25"><time>2024-06-01T08:00:00Z</time><ele>
				-12.5
			</ele></trkpt></trkseg></trk>`),
			want: gpx.Route{Points: []geo.Point{{Lat: -33.25, Lon: -1.5, Ele: -12.5}}, TrackStarts: []int{0}},
		},
		{
			name: "predefined and numeric character references",
			give: doc(`<trk><name> Lac &amp; Col d&#233;vers &lt;2&gt; </name><trkseg><trkpt lat="1" lon="1"/></trkseg></trk>`),
			want: gpx.Route{Title: "Lac & Col dévers <2>", Points: []geo.Point{{Lat: 1, Lon: 1}}, TrackStarts: []int{0}},
		},
		{
			name: "GPX 1.0 namespace",
			give: `<gpx version="1.0" xmlns="http://www.topografix.com/GPX/1/0"><trk><name>Old</name><trkseg><trkpt lat="1" lon="1"><ele>5</ele></trkpt></trkseg></trk></gpx>`,
			want: gpx.Route{Title: "Old", Points: []geo.Point{{Lat: 1, Lon: 1, Ele: 5}}, TrackStarts: []int{0}},
		},
		{
			name: "prefixed namespace",
			give: `<g:gpx xmlns:g="http://www.topografix.com/GPX/1/1"><g:trk><g:trkseg><g:trkpt lat="1" lon="1"><g:ele>7</g:ele></g:trkpt></g:trkseg></g:trk></g:gpx>`,
			want: gpx.Route{Points: []geo.Point{{Lat: 1, Lon: 1, Ele: 7}}, TrackStarts: []int{0}},
		},
		{
			name: "title from the first named track",
			give: doc(`<trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk><trk><name>Second</name><trkseg><trkpt lat="2" lon="2"/></trkseg></trk><trk><name>Third</name></trk>`),
			want: gpx.Route{Title: "Second", Points: []geo.Point{{Lat: 1, Lon: 1}, {Lat: 2, Lon: 2}}, TrackStarts: []int{0, 1}},
		},
		{
			name: "byte order mark",
			give: "\xEF\xBB\xBF" + doc(`<trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>`),
			want: gpx.Route{Points: []geo.Point{{Lat: 1, Lon: 2}}, TrackStarts: []int{0}},
		},
		{
			name: "route points and waypoints are not read",
			give: doc(`<wpt lat="9" lon="9"/><rte><rtept lat="8" lon="8"/></rte><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk>`),
			want: gpx.Route{Points: []geo.Point{{Lat: 1, Lon: 1}}, TrackStarts: []int{0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := gpx.Parse(strings.NewReader(tt.give))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseMultiTrackMultiSegment(t *testing.T) {
	t.Parallel()
	first := routefixture.Route(1, 30, 20)
	second := routefixture.Route(2, 20, 20)
	third := routefixture.Route(3, 25, 20)
	data := routefixture.MultiTrackGPX(
		routefixture.Track{Name: "Day one & two", Segments: [][]geo.Point{first[:10], first[10:]}},
		routefixture.Track{Name: "Unused name", Segments: [][]geo.Point{second}},
		routefixture.Track{Segments: [][]geo.Point{third[:5], third[5:15], third[15:]}},
	)

	got, err := gpx.Parse(bytes.NewReader(data))
	require.NoError(t, err)

	want := append(append(append([]geo.Point{}, first...), second...), third...)
	assert.Equal(t, want, got.Points, "every track and segment in order, nothing from waypoints, routes, extensions, comments or CDATA")
	assert.Equal(t, "Day one & two", got.Title, "the first track's name, not the metadata's")
	assert.Equal(t, []int{0, 30, 50}, got.TrackStarts)
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()

	point := `<trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk>`
	tests := []struct {
		name string
		give []byte
		want error
	}{
		{name: "entity bomb", give: routefixture.DoctypeBomb(), want: gpx.ErrDoctype},
		{name: "plain doctype", give: []byte(`<!DOCTYPE gpx SYSTEM "gpx.dtd">` + doc(point)), want: gpx.ErrDoctype},
		{name: "lower-case doctype", give: []byte(`<?xml version="1.0"?><!doctype gpx>` + doc(point)), want: gpx.ErrDoctype},
		{name: "mixed-case doctype", give: []byte(`<!DocType gpx>` + doc(point)), want: gpx.ErrDoctype},
		{name: "doctype in a comment", give: []byte(doc(`<!-- <!DOCTYPE x> -->` + point)), want: gpx.ErrDoctype},
		{name: "doctype in CDATA", give: []byte(doc(`<trk><desc><![CDATA[<!DOCTYPE x>]]></desc></trk>` + point)), want: gpx.ErrDoctype},
		{name: "spaced doctype directive", give: []byte(`<! DOCTYPE gpx>` + doc(point)), want: gpx.ErrDoctype},
		{name: "entity declaration without doctype", give: []byte(`<!ENTITY x "boom">` + doc(point)), want: gpx.ErrDoctype},
		{name: "no track point", give: routefixture.NoTrackPoints(), want: gpx.ErrNoTrackPoints},
		{name: "track point outside a track", give: []byte(doc(`<trkpt lat="1" lon="1"/>`)), want: gpx.ErrNoTrackPoints},
		{name: "plain text", give: routefixture.NotGPX(), want: gpx.ErrNotGPX},
		{name: "empty", give: nil, want: gpx.ErrNotGPX},
		{name: "another XML format", give: []byte(`<kml xmlns="http://www.opengis.net/kml/2.2"><Document/></kml>`), want: gpx.ErrNotGPX},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := gpx.Parse(bytes.NewReader(tt.give))
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestParseDoctypeSplitAcrossReads(t *testing.T) {
	t.Parallel()
	// One byte per read: the marker must still be seen whole.
	r := iotest.OneByteReader(strings.NewReader(doc(`<!-- <!dOcTyPe x> -->`)))
	_, err := gpx.Parse(r)
	require.ErrorIs(t, err, gpx.ErrDoctype)
}

func TestParseSyntaxErrors(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name       string
		give       []byte
		wantLine   int
		wantReason string
	}{
		{name: "truncated upload", give: routefixture.Truncated(), wantLine: 13, wantReason: "unexpected EOF"},
		{name: "undefined entity is not expanded", give: []byte(doc("\n<trk><name>&bomb;</name></trk>")), wantLine: 3, wantReason: "invalid character entity &bomb;"},
		{name: "mismatched tags", give: []byte(doc("\n<trk></trkseg>")), wantLine: 3, wantReason: "element <trk> closed by </trkseg>"},
		{name: "latitude not a number", give: []byte(doc(`<trk><trkseg><trkpt lat="north" lon="1"/></trkseg></trk>`)), wantLine: 2, wantReason: "trkpt lat is not a latitude"},
		{name: "latitude out of range", give: []byte(doc(`<trk><trkseg><trkpt lat="91" lon="1"/></trkseg></trk>`)), wantLine: 2, wantReason: "trkpt lat is not a latitude"},
		{name: "longitude out of range", give: []byte(doc(`<trk><trkseg><trkpt lat="1" lon="-180.5"/></trkseg></trk>`)), wantLine: 2, wantReason: "trkpt lon is not a longitude"},
		{name: "longitude missing", give: []byte(doc(`<trk><trkseg><trkpt lat="1"/></trkseg></trk>`)), wantLine: 2, wantReason: "trkpt without lat or lon"},
		{name: "elevation not a number", give: []byte(doc(`<trk><trkseg><trkpt lat="1" lon="1"><ele>high</ele></trkpt></trkseg></trk>`)), wantLine: 2, wantReason: "ele is not a number"},
		{name: "elevation not finite", give: []byte(doc(`<trk><trkseg><trkpt lat="1" lon="1"><ele>NaN</ele></trkpt></trkseg></trk>`)), wantLine: 2, wantReason: "ele is not a number"},
		{name: "elevation absurdly high", give: []byte(doc(`<trk><trkseg><trkpt lat="1" lon="1"><ele>1e308</ele></trkpt></trkseg></trk>`)), wantLine: 2, wantReason: "ele is outside -500 to 9000 metres"},
		{name: "elevation absurdly low", give: []byte(doc(`<trk><trkseg><trkpt lat="1" lon="1"><ele>-1e308</ele></trkpt></trkseg></trk>`)), wantLine: 2, wantReason: "ele is outside -500 to 9000 metres"},
		{name: "other markup declaration", give: []byte(`<!ELEMENT gpx ANY>` + doc("")), wantLine: 1, wantReason: "markup declarations are not accepted"},
		{name: "undeclared charset", give: []byte(`<?xml version="1.0" encoding="ISO-8859-1"?><gpx/>`), wantLine: 1, wantReason: "only UTF-8 is accepted"},
		{name: "long names are not echoed whole", give: []byte(doc("\n<trk></" + strings.Repeat("é", 200) + ">")), wantLine: 3, wantReason: "element <trk> closed by </" + strings.Repeat("é", 47) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := gpx.Parse(bytes.NewReader(tt.give))
			var syntax *gpx.SyntaxError
			require.ErrorAs(t, err, &syntax)
			assert.Equal(t, tt.wantLine, syntax.Line)
			assert.Equal(t, tt.wantReason, syntax.Reason)
			assert.Positive(t, syntax.Offset)
			assert.LessOrEqual(t, syntax.Offset, int64(len(tt.give)))
		})
	}
}

func TestParseSizeLimit(t *testing.T) {
	t.Parallel()
	small := []byte(doc(`<trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk>`))
	size := int64(len(small))

	tests := []struct {
		name    string
		give    io.Reader
		giveMax int64
		wantErr error
	}{
		{name: "31 MB stream against the default", give: routefixture.Oversized(31_000_000), wantErr: gpx.ErrTooLarge},
		{name: "one byte over a set limit", give: bytes.NewReader(small), giveMax: size - 1, wantErr: gpx.ErrTooLarge},
		{name: "exactly at a set limit", give: bytes.NewReader(small), giveMax: size},
		{name: "exactly at a set limit, a byte a read", give: iotest.OneByteReader(bytes.NewReader(small)), giveMax: size},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := gpx.Parser{MaxBytes: tt.giveMax}.Parse(tt.give)
			if tt.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tt.wantErr)
		})
	}
}

func TestParseReaderFailure(t *testing.T) {
	t.Parallel()
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader(`<gpx><trk><trkseg>`), iotest.ErrReader(boom))

	_, err := gpx.Parse(r)
	require.ErrorIs(t, err, boom)
	var syntax *gpx.SyntaxError
	assert.False(t, errors.As(err, &syntax), "a broken connection is not the document's fault")
}

// BenchmarkParseLong reads the long fixture with the scanner Parse uses
// and, for comparison, with the standard decoder it replaced.
func BenchmarkParseLong(b *testing.B) {
	data := routefixture.LongGPX()
	for _, reader := range []struct {
		name  string
		parse func([]byte) (gpx.Route, error)
	}{
		{"scanner", func(d []byte) (gpx.Route, error) { return gpx.Parse(bytes.NewReader(d)) }},
		{"decoder", func(d []byte) (gpx.Route, error) { return gpx.DecoderParse(bytes.NewReader(d), 0) }},
	} {
		b.Run("reader="+reader.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				route, err := reader.parse(data)
				if err != nil || len(route.Points) != routefixture.LongPoints {
					b.Fatal(len(route.Points), err)
				}
			}
		})
	}
}
