package export

import (
	"bufio"
	"encoding/xml"
	"io"
	"strconv"
)

// WriteGPX writes t as a GPX 1.1 document, creator "Cairn", UTF-8: metadata
// (name, and link href when t.Link is set), one wpt per waypoint (name, sym,
// type, in the order the schema requires), then one trk named t.Name with a
// single trkseg of trkpt lat lon with ele. Empty names and types are left
// out. Every name, type and the link are escaped by encoding/xml, and runes
// XML cannot hold are replaced, so no input can add markup. Coordinates are
// written in their shortest exact decimal form, never with an exponent,
// which the schema's xsd:decimal does not allow.
//
// It fails with ErrNoPoints or ErrInvalidCoordinate before writing, or with
// w's first write error.
func WriteGPX(w io.Writer, t Track) error {
	if err := t.check(); err != nil {
		return err
	}
	g := gpxWriter{w: bufio.NewWriter(w)}
	g.raw(xml.Header)
	g.raw(`<gpx version="1.1" creator="Cairn" xmlns="http://www.topografix.com/GPX/1/1">` + "\n")

	if t.Name != "" || t.Link != "" {
		g.raw("  <metadata>\n")
		g.element("    ", "name", t.Name)
		if t.Link != "" {
			g.raw(`    <link href="`)
			g.text(t.Link)
			g.raw(`"/>` + "\n")
		}
		g.raw("  </metadata>\n")
	}

	for _, wp := range t.Waypoints {
		g.raw(`  <wpt lat="`)
		g.number(wp.Lat)
		g.raw(`" lon="`)
		g.number(wp.Lon)
		g.raw(`">` + "\n")
		g.element("    ", "name", wp.Name)
		g.element("    ", "sym", Symbol(wp.Category))
		g.element("    ", "type", wp.Category)
		g.raw("  </wpt>\n")
	}

	g.raw("  <trk>\n")
	g.element("    ", "name", t.Name)
	g.raw("    <trkseg>\n")
	for _, p := range t.Points {
		g.raw(`      <trkpt lat="`)
		g.number(p.Lat)
		g.raw(`" lon="`)
		g.number(p.Lon)
		g.raw(`"><ele>`)
		g.number(p.Ele)
		g.raw("</ele></trkpt>\n")
	}
	g.raw("    </trkseg>\n  </trk>\n</gpx>\n")
	if g.err != nil {
		return g.err
	}
	return g.w.Flush()
}

// gpxWriter streams the document; it keeps the first error so the writing
// code above reads as the document's outline.
type gpxWriter struct {
	w   *bufio.Writer
	num []byte // scratch for numbers: no allocation per point
	err error
}

func (g *gpxWriter) raw(s string) {
	if g.err == nil {
		_, g.err = g.w.WriteString(s)
	}
}

// text escapes s for element content and for a double-quoted attribute
// alike: EscapeText escapes both quote characters and the line breaks.
func (g *gpxWriter) text(s string) {
	if g.err == nil {
		g.err = xml.EscapeText(g.w, []byte(s))
	}
}

// element writes <name>value</name> on its own line, nothing when value is
// empty.
func (g *gpxWriter) element(indent, name, value string) {
	if value == "" {
		return
	}
	g.raw(indent + "<" + name + ">")
	g.text(value)
	g.raw("</" + name + ">\n")
}

func (g *gpxWriter) number(v float64) {
	if g.err == nil {
		g.num = strconv.AppendFloat(g.num[:0], v, 'f', -1, 64)
		_, g.err = g.w.Write(g.num)
	}
}
