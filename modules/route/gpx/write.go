package gpx

import (
	"bufio"
	"encoding/xml"
	"io"
	"strconv"

	"cairn/modules/route/geo"
)

// Write writes points as a GPX 1.1 document (creator "Cairn") holding one
// track named name with one segment. Coordinates and elevations are written
// in their shortest exact decimal form, so Parse gives back the same values.
func Write(w io.Writer, name string, points []geo.Point) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(xml.Header)
	bw.WriteString(`<gpx version="1.1" creator="Cairn" xmlns="http://www.topografix.com/GPX/1/1">` + "\n")
	bw.WriteString("  <trk>\n")
	if name != "" {
		bw.WriteString("    <name>")
		if err := xml.EscapeText(bw, []byte(name)); err != nil {
			return err
		}
		bw.WriteString("</name>\n")
	}
	bw.WriteString("    <trkseg>\n")
	// One scratch buffer for every number keeps the writer allocation-free
	// per point.
	var num []byte
	for _, p := range points {
		bw.WriteString(`      <trkpt lat="`)
		num = strconv.AppendFloat(num[:0], p.Lat, 'f', -1, 64)
		bw.Write(num)
		bw.WriteString(`" lon="`)
		num = strconv.AppendFloat(num[:0], p.Lon, 'f', -1, 64)
		bw.Write(num)
		bw.WriteString(`"><ele>`)
		num = strconv.AppendFloat(num[:0], p.Ele, 'f', -1, 64)
		bw.Write(num)
		bw.WriteString("</ele></trkpt>\n")
	}
	bw.WriteString("    </trkseg>\n  </trk>\n</gpx>\n")
	// bufio keeps the first write error and reports it here.
	return bw.Flush()
}
