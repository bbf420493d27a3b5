package gpx_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/routefixture"
)

// The scanner is held to the standard decoder's reading (gpx.DecoderParse,
// what Parse was before it) on every fixture and on documents written to
// reach each rule of XML it checks: the same points, title and track
// starts, or the same refusal.

// outcome is what a parse answers, in comparable form.
type outcome struct {
	route  gpx.Route
	kind   string // "", or the refusal's kind
	reason string // a syntax error's reason
	line   int
}

func outcomeOf(r gpx.Route, err error) outcome {
	var syntax *gpx.SyntaxError
	switch {
	case err == nil:
		return outcome{route: r}
	case errors.Is(err, gpx.ErrTooLarge):
		return outcome{kind: "too large"}
	case errors.Is(err, gpx.ErrDoctype):
		return outcome{kind: "doctype"}
	case errors.Is(err, gpx.ErrNotGPX):
		return outcome{kind: "not gpx"}
	case errors.Is(err, gpx.ErrNoTrackPoints):
		return outcome{kind: "no track point"}
	case errors.As(err, &syntax):
		return outcome{kind: "syntax", reason: syntax.Reason, line: syntax.Line}
	}
	return outcome{kind: "other: " + err.Error()}
}

// hostile are documents for the rules of XML the scanner checks, each
// well-formed or not in one way.
var hostile = []string{
	doc(`<trk><name>a&#x41;&#66;&lt;&gt;&amp;&apos;&quot;</name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk><name>&#0;</name></trk>`),
	doc(`<trk><name>&#xD800;</name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk><name>&#x110000;</name></trk>`),
	doc(`<trk><name>&#;</name></trk>`),
	doc(`<trk><name>&#x;</name></trk>`),
	doc(`<trk><name>&#12</name></trk>`),
	doc(`<trk><name>&;</name></trk>`),
	doc(`<trk><name>& b</name></trk>`),
	doc(`<trk><name>&nbsp;</name></trk>`),
	doc(`<trk><name>&lt</name></trk>`),
	doc("<trk><name>a\r\nb\rc</name><trkseg><trkpt lat='1' lon='2'/></trkseg></trk>"),
	doc("<trk><name>\x01</name></trk>"),
	doc("<trk><name>\xff</name></trk>"),
	doc("<trk><name>\xc3</name></trk>"),
	doc("<trk><name>\xed\xa0\x80</name></trk>"),
	doc("<trk><name>\xef\xbf\xbe</name></trk>"),
	doc("<trk><name>é\xf0\x9f\x9a\xb2</name><trkseg><trkpt lat='1' lon='2'/></trkseg></trk>"),
	doc(`<trk><name>a]]>b</name></trk>`),
	doc(`<trk><name>a]]b]>c</name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk><name><![CDATA[a]]]></name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk><name><![CDATA[a]]]]]>b]]></name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk><name><![CDATA[&amp;<x>]]></name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk><name><![CDAT[x]]></name></trk>`),
	doc(`<trk><name><![CDATA[x`),
	doc(`<!-- a -- b --><trk/>`),
	doc(`<!- x --><trk/>`),
	doc(`<!--->--><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>`),
	doc(`<?pi some data?><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>`),
	doc(`<? x?>`),
	doc(`<?1x?>`),
	`<?xml version="1.1"?><gpx/>`,
	`<?xml version='1.0' encoding='utf-8'?><gpx><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>`,
	`<?xml version="1.0" encoding="UTF-16"?><gpx/>`,
	`<?xml encoding=x encoding="latin1"?><gpx/>`,
	`<!ELEMENT gpx (trk)>` + doc(``),
	`<!ATTLIST gpx a CDATA "x>y" <!-- > --> <q>>` + doc(``),
	`<!foo <!-x>>` + doc(``),
	`<!DOC"TYPE">` + doc(``),
	doc(`<trk><trkseg><trkpt lat="1" lon="2" lat="3"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="x" lon="y"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lon="y" lat="x"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lat="x" lon="2"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="x" lon=2/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2" ok/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2"/ ></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="&#49;" lon=" &#x32; "/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1<" lon="2"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2" note="]]>"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt g:lat="5" lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk xmlns:g=""><trkseg><trkpt g:lat="5" lon="2"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt g:lat="5" lon="2" xmlns:g=""/></trkseg></trk>`),
	doc(`<trk xmlns:g=""><trkseg xmlns:g="urn:x"><trkpt g:lat="5" lon="2"/></trkseg></trk>`),
	doc(`<trk xmlns:g=""><trkseg></trkseg></trk><trk><trkseg><trkpt g:lat="5" lon="2"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt xml:lat="5" xmlns:lat="6" lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt :lat="5" lat:="6" lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt a:b:c="5" lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk><trkseg><a:b:c/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2"></trkpt ></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2"></trkpt x></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2"></></trkseg></trk>`),
	doc(`<g:trk xmlns:g="urn:g"></h:trk>`),
	doc(`<g:trk xmlns:g="urn:g"></trk>`),
	doc(`<trk></g:trk>`),
	`<gpx></gpx></gpx>`,
	`<gpx></gpx><trk/>`,
	`<gpx><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx> trailing text`,
	`text first <gpx><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>`,
	`<gpx><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx><gpx/>`,
	`<1gpx/>`,
	`<-gpx/>`,
	`< gpx/>`,
	`<gpx a='1' b="2"c='3'/>`,
	`<gpx a = "1"/>`,
	`<gpx a/>`,
	`<gpx a=/>`,
	"<gpx\r\n\ta='1'\r\n/>",
	"<gpxé/>",
	"<éa/>",
	"<gpx><trk><trkseg><trkpt lat='1' lon='2'><éle>3</éle></trkpt></trkseg></trk></gpx>",
	"<gpx><trk><trkseg><trkpt lat='1' lon='2'><\u00b7x/></trkpt></trkseg></trk></gpx>",
	"<gpx><trk><trkseg><trkpt lat='1' lon='2'><x\u00b7/></trkpt></trkseg></trk></gpx>",
	"<gpx><trk><trkseg><trkpt lat='1' lon='2'><x\xff/></trkpt></trkseg></trk></gpx>",
	doc(`<trk><trkseg><trkpt lat="1" lon="2"><ele>1<!-- c -->2<?p?>3</ele></trkpt></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2"><ele><![CDATA[ 4]]>5</ele></trkpt></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2"><ele><x>6</x></ele></trkpt></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2"><ele>&#x37;</ele></trkpt></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2"><x><ele>8</ele></x></trkpt></trkseg></trk>`),
	doc(`<trk><x><name>Inner</name></x><name>Outer</name><trkseg><trkpt lat="1" lon="2"/></trkseg></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2"><trkpt lat="3" lon="4"/></trkpt></trkseg></trk>`),
	doc(`<trk><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></trk>`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2">`),
	doc(`<trk><trkseg><trkpt lat="1" lon="2`),
	doc(`<trk><trkseg><trkpt lat`),
	doc(`<trk><trkseg></trkseg`),
	doc(`<trk><name>&am`),
	doc(`<trk><name>&#x4`),
	doc(`<trk><!-- x -`),
	doc(`<trk><?x ?`),
	"<gpx>\x00</gpx>",
	"",
	"<",
	"<gpx",
	"\xef\xbb\xbf<gpx><trk><trkseg><trkpt lat='1' lon='2'/></trkseg></trk></gpx>",
}

func TestScannerMatchesDecoder(t *testing.T) {
	t.Parallel()
	type input struct {
		name string
		data []byte
	}
	inputs := []input{
		{"multi-track", routefixture.MultiTrackGPX(
			routefixture.Track{Name: "Day one & two", Segments: [][]geo.Point{routefixture.Route(1, 30, 20)[:10], routefixture.Route(1, 30, 20)[10:]}},
			routefixture.Track{Segments: [][]geo.Point{routefixture.Route(2, 20, 20)}})},
		{"long", routefixture.LongGPX()},
		{"doctype bomb", routefixture.DoctypeBomb()},
		{"no track points", routefixture.NoTrackPoints()},
		{"truncated", routefixture.Truncated()},
		{"not gpx", routefixture.NotGPX()},
	}
	for _, shape := range routefixture.Shapes() {
		var buf bytes.Buffer
		require.NoError(t, export.WriteGPX(&buf, export.Track{Name: shape.Name, Points: shape.Points(2_000)}))
		inputs = append(inputs, input{"shape " + shape.Name, buf.Bytes()})
	}
	for i, h := range hostile {
		inputs = append(inputs, input{fmt.Sprintf("hostile %03d", i), []byte(h)})
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			want := outcomeOf(gpx.DecoderParse(bytes.NewReader(in.data), 0))
			got := outcomeOf(gpx.Parse(bytes.NewReader(in.data)))
			require.Equal(t, want, got, "%.300q", in.data)
			// A byte a read changes nothing.
			got = outcomeOf(gpx.Parse(iotest.OneByteReader(bytes.NewReader(in.data))))
			want = outcomeOf(gpx.DecoderParse(iotest.OneByteReader(bytes.NewReader(in.data)), 0))
			assert.Equal(t, want, got, "a byte a read")
		})
	}
}

// FuzzScannerMatchesDecoder: for any bytes, the scanner accepts what the
// decoder accepts, with the same route, and refuses what it refuses, for
// the same kind of reason.
func FuzzScannerMatchesDecoder(f *testing.F) {
	for _, h := range hostile {
		f.Add([]byte(h))
	}
	f.Add(routefixture.MultiTrackGPX(routefixture.Track{Name: "x", Segments: [][]geo.Point{routefixture.Route(1, 5, 20)}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		want := outcomeOf(gpx.DecoderParse(bytes.NewReader(data), fuzzMaxBytes))
		got := outcomeOf(gpx.Parser{MaxBytes: fuzzMaxBytes}.Parse(bytes.NewReader(data)))
		want.reason, got.reason, want.line, got.line = "", "", 0, 0
		require.Equal(t, want, got, "%q", data)
	})
}
