// Package gpx reads and writes GPX track files.
//
// Parse streams the document through a scanner of its own (scan.go) that
// allocates nothing per element, so memory beyond the returned points stays
// constant whatever the file holds, and a 30 MB upload parses in a small
// fraction of a second. It is hardened for uploads
// from strangers (pipeline.md §3): a size limit, no document type declaration,
// no entity expansion, no network access, and only <trkpt lat lon> with an
// optional <ele> are read.
package gpx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/text"
)

// DefaultMaxBytes is the largest stream Parse reads: 30 MB, the upload limit
// of pipeline.md §2.
const DefaultMaxBytes = 30_000_000

// Route is what a GPX file yields.
type Route struct {
	// Title is the first <trk><name>, cleaned and cut by the rule of package
	// text to text.MaxTitle runes; empty when there is none.
	Title string
	// Points holds every track point of every track and segment, in file order.
	Points []geo.Point
	// TrackStarts holds, for each track that has points, the index in Points of
	// its first point, so per-track geometry can be cut out without a copy.
	TrackStarts []int
}

// Parser reads GPX with a configurable size limit. The zero value is ready
// to use with DefaultMaxBytes.
type Parser struct {
	// MaxBytes bounds the stream; zero or negative means DefaultMaxBytes.
	MaxBytes int64
}

// Parse reads a GPX document from r with the default Parser.
func Parse(r io.Reader) (Route, error) {
	return Parser{}.Parse(r)
}

// Parse reads a GPX document from r. Errors are ErrTooLarge, ErrDoctype,
// ErrNotGPX, ErrNoTrackPoints or a *SyntaxError (test with errors.Is and
// errors.As); an error from r itself is returned wrapped.
func (p Parser) Parse(r io.Reader) (Route, error) {
	limit := p.MaxBytes
	if limit <= 0 {
		limit = DefaultMaxBytes
	}
	guard := &guardReader{r: r, remaining: limit}
	st := parser{s: newScanner(guard)}
	if err := st.run(); err != nil {
		return Route{}, wrap(err)
	}
	if st.count == 0 {
		return Route{}, ErrNoTrackPoints
	}
	st.route.Points = st.points()
	return st.route, nil
}

// parser follows where the document is with depth counters; the scanner
// checks that end tags match with a stack of raw names.
type parser struct {
	s     *scanner
	route Route

	depth     int  // of the element being read, root is 1
	rootSeen  bool // the <gpx> element was opened
	trkDepth  int  // depth of the open <trk>, 0 outside
	trkHas    bool // the open <trk> already has a point
	ptDepth   int  // depth of the open <trkpt>, 0 outside
	titleDone bool // a <trk><name> was read; later ones are ignored

	// text collects character data of the <ele> being read.
	text      []byte
	textDepth int  // depth of the <ele> or <trk><name> being read, 0 when none
	textName  bool // it is the <trk><name>
	point     geo.Point

	// The points read, in chunks of pointChunk, joined once at the end:
	// appended to one slice, a 1M-point file allocated 100 MB of arrays
	// outgrown on the way to its 24 MB.
	chunks [][]geo.Point
	count  int

	// title collects the <trk><name>, bounded as it is read.
	title text.Builder

	// open holds the raw names of the open elements end to end, and ends
	// where each stops; bindings the namespace prefixes they declare.
	open     []byte
	ends     []int
	bindings []binding

	// Scratch space, reused from one element to the next.
	name, attr, value, ref, chunk, markup []byte
	coords                                []coordinate
}

// binding is a namespace prefix declared by an element (xmlns:p="…"):
// only whether it is bound to nothing matters, since an attribute in no
// namespace is what the decoder gave the parser as lat or lon.
type binding struct {
	depth  int
	prefix string
	empty  bool
}

// coordinate is a lat or lon attribute of a track point, read as written
// (NaN when it is not a coordinate), judged once the tag is read whole.
type coordinate struct {
	prefix string // empty when the attribute has none
	lat    bool
	value  float64
}

func (p *parser) run() error {
	s := p.s
	for {
		b, ok := s.next()
		if !ok {
			if err := s.stop(); err != errEOF {
				return err
			}
			if len(p.ends) > 0 {
				return p.syntax("unexpected EOF")
			}
			if !p.rootSeen {
				return ErrNotGPX
			}
			return nil
		}
		var err error
		if b != '<' {
			s.unread()
			err = p.chars(inText)
		} else if b, err = s.must(); err != nil {
			err = p.eof(err)
		} else {
			switch b {
			case '/':
				err = p.endTag()
			case '?':
				err = p.instruction()
			case '!':
				err = p.bang()
			default:
				s.unread()
				err = p.startTag()
			}
		}
		if err != nil {
			return err
		}
	}
}

// chars reads character data, keeping it when an <ele> or a <trk><name>
// is open (any element's text inside them counts).
func (p *parser) chars(mode textMode) error {
	if p.textDepth == 0 {
		_, err := p.charData(mode, 0, nil, false, false)
		return err
	}
	var err error
	p.chunk, err = p.charData(mode, 0, p.chunk[:0], true, true)
	if err == nil {
		p.collect(p.chunk)
	}
	return err
}

// collect takes character data of the element being read. A name goes
// through the title's text.Builder, which keeps text.MaxTitle runes and
// drops the rest as it comes, so a name of megabytes is never copied whole.
func (p *parser) collect(data []byte) {
	if p.textName {
		p.title.Write(data)
		return
	}
	p.text = append(p.text, data...)
}

// qualifiedName reads an element or attribute name; what names the
// problem when there is none.
func (p *parser) qualifiedName(dst []byte, what string) ([]byte, []byte, error) {
	name, ok, err := p.s.readName(dst)
	if err != nil {
		return name, nil, p.eof(err)
	}
	if ok && !validName(name) {
		return name, nil, p.syntax("invalid XML name: " + string(name))
	}
	_, local, split := splitName(name)
	if !ok || !split {
		return name, nil, p.syntax(what)
	}
	return name, local, nil
}

func (p *parser) startTag() error {
	s := p.s
	name, local, err := p.qualifiedName(p.name[:0], "expected element name after <")
	p.name = name
	if err != nil {
		return err
	}
	point := string(local) == "trkpt" && p.trkDepth != 0 && p.ptDepth == 0
	p.coords = p.coords[:0]
	empty := false
	for {
		s.space()
		b, err := s.must()
		if err != nil {
			return p.eof(err)
		}
		if b == '/' {
			if b, err = s.must(); err != nil {
				return p.eof(err)
			}
			if b != '>' {
				return p.syntax("expected /> in element")
			}
			empty = true
			break
		}
		if b == '>' {
			break
		}
		s.unread()
		if err := p.attribute(point); err != nil {
			return err
		}
	}
	p.open = append(p.open, name...)
	p.ends = append(p.ends, len(p.open))
	if err := p.start(local, point); err != nil {
		return err
	}
	if empty {
		p.pop()
		return p.end()
	}
	return nil
}

// attribute reads one name="value" of a start tag. Values are checked and
// decoded like text; a track point's coordinates and namespace
// declarations are kept.
func (p *parser) attribute(point bool) error {
	s := p.s
	attr, local, err := p.qualifiedName(p.attr[:0], "expected attribute name in element")
	p.attr = attr
	if err != nil {
		return err
	}
	prefix, _, _ := splitName(attr)
	s.space()
	b, err := s.must()
	if err != nil {
		return p.eof(err)
	}
	if b != '=' {
		return p.syntax("attribute name without = in element")
	}
	s.space()
	if b, err = s.must(); err != nil {
		return p.eof(err)
	}
	if b != '"' && b != '\'' {
		return p.syntax("unquoted or missing attribute value in element")
	}
	lat, lon := string(local) == "lat", string(local) == "lon"
	declares := string(prefix) == "xmlns"
	keep := declares || point && (lat || lon)
	p.value, err = p.charData(inQuotes, b, p.value[:0], keep, false)
	if err != nil || !keep {
		return err
	}
	switch {
	case declares:
		p.bindings = append(p.bindings, binding{depth: p.depth + 1, prefix: string(local), empty: len(p.value) == 0})
	case lat:
		p.coords = append(p.coords, coordinate{prefix: string(prefix), lat: true, value: parseCoordinate(p.value, 90)})
	case lon:
		p.coords = append(p.coords, coordinate{prefix: string(prefix), value: parseCoordinate(p.value, 180)})
	}
	return nil
}

// inNoNamespace reports whether an attribute of that prefix is in no
// namespace: it has none, or its prefix is declared bound to nothing.
func (p *parser) inNoNamespace(prefix string) bool {
	if prefix == "" {
		return true
	}
	if prefix == "xmlns" || prefix == "xml" {
		return false
	}
	for i := len(p.bindings) - 1; i >= 0; i-- {
		if p.bindings[i].prefix == prefix {
			return p.bindings[i].empty
		}
	}
	return false
}

func (p *parser) endTag() error {
	s := p.s
	name, local, err := p.qualifiedName(p.name[:0], "expected element name after </")
	p.name = name
	if err != nil {
		return err
	}
	s.space()
	b, err := s.must()
	if err != nil {
		return p.eof(err)
	}
	if b != '>' {
		return p.syntax("invalid characters between </" + string(local) + " and >")
	}
	if len(p.ends) == 0 {
		return p.syntax("unexpected end element </" + string(local) + ">")
	}
	from := 0
	if n := len(p.ends); n > 1 {
		from = p.ends[n-2]
	}
	if top := p.open[from:]; !bytes.Equal(top, name) {
		topPrefix, topLocal, _ := splitName(top)
		if !bytes.Equal(topLocal, local) {
			return p.syntax("element <" + string(topLocal) + "> closed by </" + string(local) + ">")
		}
		prefix, _, _ := splitName(name)
		space := string(prefix)
		if space == "" {
			space = `""`
		}
		return p.syntax("element <" + string(topLocal) + "> in space " + string(topPrefix) +
			" closed by </" + string(local) + "> in space " + space)
	}
	p.pop()
	return p.end()
}

// pop closes the innermost element: its name, and the prefixes it bound.
func (p *parser) pop() {
	n := len(p.ends)
	p.ends = p.ends[:n-1]
	p.open = p.open[:0]
	if n > 1 {
		p.open = p.open[:p.ends[n-2]]
	}
	for len(p.bindings) > 0 && p.bindings[len(p.bindings)-1].depth >= p.depth {
		p.bindings = p.bindings[:len(p.bindings)-1]
	}
}

// instruction reads a processing instruction after its "<?". The XML
// declaration's version must be 1.0 and its encoding UTF-8.
func (p *parser) instruction() error {
	s := p.s
	target, ok, err := s.readName(p.name[:0])
	p.name = target
	if err != nil {
		return p.eof(err)
	}
	if !ok {
		return p.syntax("expected target name after <?")
	}
	if !validName(target) {
		return p.syntax("invalid XML name: " + string(target))
	}
	declaration := string(target) == "xml"
	s.space()
	data := p.markup[:0]
	var b0 byte
	for {
		b, err := s.must()
		if err != nil {
			return p.eof(err)
		}
		if declaration {
			data = append(data, b)
		}
		if b0 == '?' && b == '>' {
			break
		}
		b0 = b
	}
	p.markup = data
	if !declaration {
		return nil
	}
	content := string(data[:len(data)-2])
	if v := pseudoAttribute("version", content); v != "" && v != "1.0" {
		return p.syntax(fmt.Sprintf("unsupported version %q; only version 1.0 is supported", v))
	}
	if enc := pseudoAttribute("encoding", content); enc != "" && !strings.EqualFold(enc, "utf-8") {
		e := p.syntax("only UTF-8 is accepted").(*SyntaxError)
		e.Err = fmt.Errorf("opening charset %q: %w", enc, errCharset)
		return e
	}
	return nil
}

// pseudoAttribute reads name="value" (or '…') in an XML declaration: the
// first occurrence of name= followed by a quote, up to the same quote.
func pseudoAttribute(name, content string) string {
	key := name + "="
	for rest := content; ; {
		k := strings.Index(rest, key)
		if k < 0 || k+len(key) >= len(rest) {
			return ""
		}
		quote := rest[k+len(key)]
		rest = rest[k+len(key)+1:]
		if quote != '"' && quote != '\'' {
			continue
		}
		end := strings.IndexByte(rest, quote)
		if end < 0 {
			return ""
		}
		return rest[:end]
	}
}

// bang reads what starts with "<!": a comment, a CDATA section, or a
// markup declaration, which is refused.
func (p *parser) bang() error {
	s := p.s
	b, err := s.must()
	if err != nil {
		return p.eof(err)
	}
	switch b {
	case '-':
		if b, err = s.must(); err != nil {
			return p.eof(err)
		}
		if b != '-' {
			return p.syntax("invalid sequence <!- not part of <!--")
		}
		var b0, b1 byte
		for {
			b, err := s.must()
			if err != nil {
				return p.eof(err)
			}
			if b0 == '-' && b1 == '-' {
				if b != '>' {
					return p.syntax(`invalid sequence "--" not allowed in comments`)
				}
				return nil
			}
			b0, b1 = b1, b
		}
	case '[':
		for i := range len("CDATA[") {
			if b, err = s.must(); err != nil {
				return p.eof(err)
			}
			if b != "CDATA["[i] {
				return p.syntax("invalid <![ sequence")
			}
		}
		return p.chars(inCDATA)
	}
	body, err := p.declaration(b)
	if err != nil {
		return err
	}
	if containsFold(body, "doctype") || containsFold(body, "entity") {
		return ErrDoctype
	}
	return p.syntax("markup declarations are not accepted")
}

// declaration reads a markup declaration whose first byte is first, to
// its closing '>': quoted text and nested brackets do not close it, and a
// comment inside stands as one space.
func (p *parser) declaration(first byte) ([]byte, error) {
	s := p.s
	body := append(p.markup[:0], first)
	defer func() { p.markup = body[:0] }()
	var quote byte
	depth := 0
	again := false // b is still to be handled: it ended a "<!--" that was not one
	var b byte
	for {
		if !again {
			var err error
			if b, err = s.must(); err != nil {
				return nil, p.eof(err)
			}
			if quote == 0 && b == '>' && depth == 0 {
				return body, nil
			}
		}
		again = false
		body = append(body, b)
		switch {
		case b == quote:
			quote = 0
		case quote != 0:
		case b == '\'' || b == '"':
			quote = b
		case b == '>':
			depth--
		case b == '<':
			const open = "!--"
			i := 0
			for ; i < len(open); i++ {
				var err error
				if b, err = s.must(); err != nil {
					return nil, p.eof(err)
				}
				if b != open[i] {
					break
				}
			}
			if i < len(open) {
				body = append(body, open[:i]...)
				depth++
				again = true
				continue
			}
			body = body[:len(body)-1]
			var b0, b1 byte
			for {
				c, err := s.must()
				if err != nil {
					return nil, p.eof(err)
				}
				if b0 == '-' && b1 == '-' && c == '>' {
					break
				}
				b0, b1 = b1, c
			}
			body = append(body, ' ')
		}
	}
}

func (p *parser) start(name []byte, point bool) error {
	p.depth++
	if p.depth == 1 {
		if string(name) != "gpx" {
			return ErrNotGPX
		}
		p.rootSeen = true
		return nil
	}
	switch {
	case string(name) == "trk" && p.trkDepth == 0:
		p.trkDepth, p.trkHas = p.depth, false
	case point:
		p.ptDepth = p.depth
		return p.readCoordinates()
	case string(name) == "ele" && p.ptDepth != 0 && p.depth == p.ptDepth+1:
		p.textDepth, p.textName, p.text = p.depth, false, p.text[:0]
	case string(name) == "name" && !p.titleDone && p.trkDepth != 0 && p.depth == p.trkDepth+1:
		p.textDepth, p.textName = p.depth, true
		p.title.Reset(text.MaxTitle)
	}
	return nil
}

func (p *parser) end() error {
	closing := p.depth
	p.depth--
	switch closing {
	case p.textDepth:
		return p.endText()
	case p.ptDepth:
		p.ptDepth = 0
		if !p.trkHas {
			p.trkHas = true
			p.route.TrackStarts = append(p.route.TrackStarts, p.count)
		}
		p.add(p.point)
	case p.trkDepth:
		p.trkDepth = 0
	}
	return nil
}

// pointChunk is the most points a chunk holds: 1.5 MB.
const pointChunk = 1 << 16

// add keeps a point. Chunks double from a thousand points up to
// pointChunk, so a small file takes about what it needs, and none is
// outgrown and copied: each stays until the join.
func (p *parser) add(pt geo.Point) {
	n := len(p.chunks)
	if n == 0 || len(p.chunks[n-1]) == cap(p.chunks[n-1]) {
		size := 1 << 10
		if n > 0 {
			size = min(2*cap(p.chunks[n-1]), pointChunk)
		}
		p.chunks = append(p.chunks, make([]geo.Point, 0, size))
		n++
	}
	p.chunks[n-1] = append(p.chunks[n-1], pt)
	p.count++
}

// points joins the chunks into one slice of the exact length.
func (p *parser) points() []geo.Point {
	if len(p.chunks) == 1 {
		return p.chunks[0]
	}
	out := make([]geo.Point, 0, p.count)
	for _, c := range p.chunks {
		out = append(out, c...)
	}
	return out
}

func (p *parser) endText() error {
	p.textDepth = 0
	if p.textName {
		p.route.Title, p.titleDone = p.title.String(), true
		return nil
	}
	value := bytes.TrimSpace(p.text)
	if len(value) == 0 {
		return nil // an empty <ele> is the same as none
	}
	ele, err := strconv.ParseFloat(string(value), 64)
	if err != nil || math.IsNaN(ele) || math.IsInf(ele, 0) {
		return p.syntax("ele is not a number")
	}
	if ele < geo.MinElevation || ele > geo.MaxElevation {
		return p.syntax("ele is outside -500 to 9000 metres")
	}
	p.point.Ele = ele
	return nil
}

// readCoordinates judges the point's lat and lon attributes in the order
// written: the first that is not a coordinate is refused, the last of each
// is kept. Attributes in a namespace are not the point's.
func (p *parser) readCoordinates() error {
	lat, lon := math.NaN(), math.NaN()
	for _, c := range p.coords {
		if !p.inNoNamespace(c.prefix) {
			continue
		}
		switch {
		case c.lat && math.IsNaN(c.value):
			return p.syntax("trkpt lat is not a latitude")
		case c.lat:
			lat = c.value
		case math.IsNaN(c.value):
			return p.syntax("trkpt lon is not a longitude")
		default:
			lon = c.value
		}
	}
	if math.IsNaN(lat) || math.IsNaN(lon) {
		return p.syntax("trkpt without lat or lon")
	}
	p.point = geo.Point{Lat: lat, Lon: lon}
	return nil
}

// parseCoordinate returns NaN unless s is a finite number within ±bound.
func parseCoordinate(s []byte, bound float64) float64 {
	v, err := strconv.ParseFloat(string(bytes.TrimSpace(s)), 64)
	if err != nil || !(v >= -bound && v <= bound) {
		return math.NaN()
	}
	return v
}

// syntax is a refusal at the reading position.
func (p *parser) syntax(reason string) error {
	return &SyntaxError{Line: p.s.line(), Offset: p.s.offset(), Reason: shorten(reason)}
}

// wrap turns the stream's errors into the package's, keeping the guard's
// own refusals and the document's as they are.
func wrap(err error) error {
	var readErr *readError
	var syntax *SyntaxError
	switch {
	case errors.Is(err, ErrTooLarge), errors.Is(err, ErrDoctype), errors.Is(err, ErrNotGPX), errors.As(err, &syntax):
		return err
	case errors.As(err, &readErr):
		return fmt.Errorf("gpx: reading: %w", readErr.err)
	}
	return &SyntaxError{Reason: shorten(err.Error()), Err: err}
}

// errCharset refuses a declared encoding other than UTF-8.
var errCharset = errors.New("unsupported encoding")

// maxReason bounds a reason: the decoder's messages quote element and
// entity names from the file, which can be arbitrarily long.
const maxReason = 120

func shorten(reason string) string {
	if len(reason) <= maxReason {
		return reason
	}
	cut := maxReason
	for cut > 0 && !utf8.RuneStart(reason[cut]) {
		cut--
	}
	return reason[:cut] + "…"
}

func containsFold(b []byte, lower string) bool {
	return bytes.Contains(bytes.ToLower(b), []byte(lower))
}
