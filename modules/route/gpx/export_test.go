package gpx

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/text"
)

// DecoderParse reads a document with the standard library's XML decoder, as
// Parse did before the scanner: the tests hold the two to the same answers.
var DecoderParse = decoderParse

func decoderParse(r io.Reader, limit int64) (Route, error) {
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	guard := &guardReader{r: r, remaining: limit}
	dec := xml.NewDecoder(guard)
	dec.Strict = true
	dec.Entity = map[string]string{}
	dec.CharsetReader = func(string, io.Reader) (io.Reader, error) { return nil, errCharset }

	st := decoderState{dec: dec}
	if err := st.run(); err != nil {
		return Route{}, err
	}
	if len(st.route.Points) == 0 {
		return Route{}, ErrNoTrackPoints
	}
	return st.route, nil
}

// decoderState follows where the decoder is in the tree with depth counters:
// the decoder already checks that tags match, so names need no second stack.
type decoderState struct {
	dec   *xml.Decoder
	route Route

	depth     int  // of the element being read, root is 1
	rootSeen  bool // the <gpx> element was opened
	trkDepth  int  // depth of the open <trk>, 0 outside
	trkHas    bool // the open <trk> already has a point
	ptDepth   int  // depth of the open <trkpt>, 0 outside
	titleDone bool // a <trk><name> was read; later ones are ignored

	// text collects character data of the <ele> or <trk><name> being read.
	text      []byte
	textDepth int    // depth of that element, 0 when none is open
	textFor   string // "ele" or "name"
	point     geo.Point

	// title collects the <trk><name>, bounded as it is read.
	title text.Builder
}

func (st *decoderState) run() error {
	for {
		tok, err := st.dec.Token()
		if err == io.EOF {
			if !st.rootSeen {
				return ErrNotGPX
			}
			return nil
		}
		if err != nil {
			return st.wrap(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := st.start(t); err != nil {
				return err
			}
		case xml.EndElement:
			if err := st.end(); err != nil {
				return err
			}
		case xml.CharData:
			if st.textDepth != 0 {
				st.collect(t)
			}
		case xml.Directive:
			return st.directive(t)
		}
	}
}

func (st *decoderState) start(t xml.StartElement) error {
	st.depth++
	name := t.Name.Local
	if st.depth == 1 {
		if name != "gpx" {
			return ErrNotGPX
		}
		st.rootSeen = true
		return nil
	}
	switch {
	case name == "trk" && st.trkDepth == 0:
		st.trkDepth, st.trkHas = st.depth, false
	case name == "trkpt" && st.trkDepth != 0 && st.ptDepth == 0:
		st.ptDepth = st.depth
		return st.readCoordinates(t)
	case name == "ele" && st.ptDepth != 0 && st.depth == st.ptDepth+1:
		st.beginText("ele")
	case name == "name" && !st.titleDone && st.trkDepth != 0 && st.depth == st.trkDepth+1:
		st.beginText("name")
		st.title.Reset(text.MaxTitle)
	}
	return nil
}

func (st *decoderState) end() error {
	closing := st.depth
	st.depth--
	switch closing {
	case st.textDepth:
		return st.endText()
	case st.ptDepth:
		st.ptDepth = 0
		if !st.trkHas {
			st.trkHas = true
			st.route.TrackStarts = append(st.route.TrackStarts, len(st.route.Points))
		}
		st.route.Points = append(st.route.Points, st.point)
	case st.trkDepth:
		st.trkDepth = 0
	}
	return nil
}

func (st *decoderState) beginText(what string) {
	st.textDepth, st.textFor, st.text = st.depth, what, st.text[:0]
}

func (st *decoderState) endText() error {
	st.textDepth = 0
	value := bytes.TrimSpace(st.text)
	if st.textFor == "name" {
		st.route.Title, st.titleDone = st.title.String(), true
		return nil
	}
	if len(value) == 0 {
		return nil // an empty <ele> is the same as none
	}
	ele, err := strconv.ParseFloat(string(value), 64)
	if err != nil || math.IsNaN(ele) || math.IsInf(ele, 0) {
		return st.invalid("ele is not a number")
	}
	if ele < geo.MinElevation || ele > geo.MaxElevation {
		return st.invalid("ele is outside -500 to 9000 metres")
	}
	st.point.Ele = ele
	return nil
}

func (st *decoderState) readCoordinates(t xml.StartElement) error {
	lat, lon := math.NaN(), math.NaN()
	for _, a := range t.Attr {
		if a.Name.Space != "" {
			continue
		}
		switch a.Name.Local {
		case "lat":
			lat = parseCoordinate([]byte(a.Value), 90)
			if math.IsNaN(lat) {
				return st.invalid("trkpt lat is not a latitude")
			}
		case "lon":
			lon = parseCoordinate([]byte(a.Value), 180)
			if math.IsNaN(lon) {
				return st.invalid("trkpt lon is not a longitude")
			}
		}
	}
	if math.IsNaN(lat) || math.IsNaN(lon) {
		return st.invalid("trkpt without lat or lon")
	}
	st.point = geo.Point{Lat: lat, Lon: lon}
	return nil
}

func (st *decoderState) directive(d xml.Directive) error {
	if containsFold(d, "doctype") || containsFold(d, "entity") {
		return ErrDoctype
	}
	return st.invalid("markup declarations are not accepted")
}

func (st *decoderState) invalid(reason string) error {
	line, _ := st.dec.InputPos()
	return &SyntaxError{Line: line, Offset: st.dec.InputOffset(), Reason: reason}
}

// wrap turns a decoder error into the package's errors, keeping the guard's
// own refusals as they are.
func (st *decoderState) wrap(err error) error {
	if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrDoctype) {
		return err
	}
	var readErr *readError
	if errors.As(err, &readErr) {
		return fmt.Errorf("gpx: reading: %w", readErr.err)
	}
	line, _ := st.dec.InputPos()
	reason := strings.TrimPrefix(err.Error(), "xml: ")
	var xmlErr *xml.SyntaxError
	switch {
	case errors.As(err, &xmlErr):
		line, reason = xmlErr.Line, xmlErr.Msg
	case errors.Is(err, errCharset):
		reason = "only UTF-8 is accepted"
	}
	return &SyntaxError{Line: line, Offset: st.dec.InputOffset(), Reason: shorten(reason), Err: err}
}

func (st *decoderState) collect(data []byte) {
	if st.textFor == "name" {
		st.title.Write(data)
		return
	}
	st.text = append(st.text, data...)
}
