package routefixture

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"cairn.dev/cairn/modules/route/geo"
)

// Track is one <trk> of a multi-track file.
type Track struct {
	Name     string
	Segments [][]geo.Point
}

// MultiTrackGPX writes tracks into one GPX 1.1 file, each segment its own
// <trkseg>, surrounded by what a parser must skip: a <metadata><name>, a
// <wpt>, a <rte> with <rtept>s, a <name> and an <ele> inside each point's
// <extensions>, a comment and a CDATA section.
func MultiTrackGPX(tracks ...Track) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<gpx version="1.1" creator="routefixture" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">` + "\n")
	b.WriteString("<metadata><name>Metadata name, not the title</name></metadata>\n")
	b.WriteString(`<wpt lat="10" lon="10"><ele>9999</ele><name>A waypoint</name></wpt>` + "\n")
	b.WriteString(`<rte><name>A route</name><rtept lat="11" lon="11"><ele>9999</ele></rtept></rte>` + "\n")
	b.WriteString("<!-- a comment: <trkpt lat=\"12\" lon=\"12\"/> -->\n")
	for _, t := range tracks {
		b.WriteString("<trk>\n")
		if t.Name != "" {
			b.WriteString("<name>")
			_ = xml.EscapeText(&b, []byte(t.Name))
			b.WriteString("</name>\n")
		}
		b.WriteString("<desc><![CDATA[<trkpt lat=\"13\" lon=\"13\"/>]]></desc>\n")
		for _, seg := range t.Segments {
			b.WriteString("<trkseg>\n")
			for _, p := range seg {
				fmt.Fprintf(&b, `<trkpt lat="%s" lon="%s"><ele>%s</ele><name>pt</name>`+
					`<extensions><gpxtpx:TrackPointExtension><gpxtpx:atemp>21</gpxtpx:atemp>`+
					`<ele>9999</ele></gpxtpx:TrackPointExtension></extensions></trkpt>`+"\n",
					format(p.Lat), format(p.Lon), format(p.Ele))
			}
			b.WriteString("</trkseg>\n")
		}
		b.WriteString("</trk>\n")
	}
	b.WriteString("</gpx>\n")
	return b.Bytes()
}

func format(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// DoctypeBomb is a GPX file opening with a "billion laughs" entity bomb in
// its document type declaration: expanded, &lol9; would be 3 GB of text.
func DoctypeBomb() []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>` + "\n<!DOCTYPE gpx [\n")
	b.WriteString(`  <!ENTITY lol0 "lol">` + "\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "  <!ENTITY lol%d \"%s\">\n", i, strings.Repeat(fmt.Sprintf("&lol%d;", i-1), 10))
	}
	b.WriteString("]>\n")
	b.WriteString(`<gpx version="1.1" creator="bomb"><trk><name>&lol9;</name><trkseg>` +
		`<trkpt lat="45" lon="6"><ele>&lol9;</ele></trkpt></trkseg></trk></gpx>` + "\n")
	return []byte(b.String())
}

// NoTrackPoints is a well-formed GPX file with waypoints, a route and an
// empty track, but no <trkpt>.
func NoTrackPoints() []byte {
	return []byte(xml.Header + `<gpx version="1.1" creator="routefixture" xmlns="http://www.topografix.com/GPX/1/1">
<wpt lat="45.1" lon="6.1"><ele>1200</ele></wpt>
<rte><rtept lat="45.2" lon="6.2"/><rtept lat="45.3" lon="6.3"/></rte>
<trk><name>Empty</name><trkseg></trkseg></trk>
</gpx>
`)
}

// Truncated is a valid GPX file cut off inside a <trkpt>, as an interrupted
// upload leaves it.
func Truncated() []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header + `<gpx version="1.1" creator="routefixture"><trk><name>Cut</name><trkseg>` + "\n")
	for i := range 10 {
		fmt.Fprintf(&b, `<trkpt lat="45.%04d" lon="6.1"><ele>%d</ele></trkpt>`+"\n", i, 1000+i)
	}
	b.WriteString(`<trkpt lat="45.9" lon="6.1"><el`)
	return b.Bytes()
}

// NotGPX is a plain text file renamed .gpx.
func NotGPX() []byte {
	return []byte("Day 1: Lyon to Vienne, 35 km along the Rhône.\nDay 2: Vienne to Valence.\n")
}

// Oversized returns a reader of a GPX stream of exactly size bytes: a header
// then track points, repeated, never closed. Its bytes are produced as they
// are read, so a multi-gigabyte stream costs no memory.
func Oversized(size int64) io.Reader {
	return &endlessGPX{size: size}
}

const (
	endlessHeader = xml.Header + `<gpx version="1.1" creator="routefixture"><trk><trkseg>` + "\n"
	endlessPoint  = `<trkpt lat="45.123456" lon="6.123456"><ele>1234.5</ele></trkpt>` + "\n"
)

type endlessGPX struct {
	size, pos int64
}

func (e *endlessGPX) Read(p []byte) (int, error) {
	if e.pos >= e.size {
		return 0, io.EOF
	}
	if rest := e.size - e.pos; int64(len(p)) > rest {
		p = p[:rest]
	}
	n := 0
	for n < len(p) {
		var src string
		var off int64
		if e.pos < int64(len(endlessHeader)) {
			src, off = endlessHeader, e.pos
		} else {
			src, off = endlessPoint, (e.pos-int64(len(endlessHeader)))%int64(len(endlessPoint))
		}
		c := copy(p[n:], src[off:])
		n += c
		e.pos += int64(c)
	}
	return n, nil
}
