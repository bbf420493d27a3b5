package gpx

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"unicode/utf8"
)

// The scanner reads XML a byte at a time from a buffer it refills itself,
// and hands the parser names, attribute values and character data as byte
// slices it reuses: nothing is allocated per element, which is what made
// the standard decoder cost a second and more for a 30 MB upload (a token,
// its names and its attributes allocated for every element).
//
// It accepts and refuses what the standard decoder does in strict mode with
// no entity but the predefined ones: well-formed elements with matching
// end tags, quoted attribute values, comments without "--", CDATA
// sections, processing instructions, character and predefined entity
// references, UTF-8 text within the XML character range. Its refusals carry
// the decoder's wording. Names outside ASCII are judged by the decoder's
// own rule (validName). The tests compare the two on every fixture and
// under fuzzing.

// readSize is what one refill asks of the stream: the standard decoder's
// buffer, so the stream is read in the same pieces and the size and
// doctype guards refuse at the same point of a document.
const readSize = 4096

// scanner is the buffered byte reader under the parser.
type scanner struct {
	src  io.Reader
	buf  []byte // buf[:end] was read; buf[0] is the byte before the last refill, kept for unread
	pos  int    // next byte to read
	end  int
	base int64 // stream offset of buf[0]
	nl   int   // line breaks before buf[0]
	err  error // the stream's error (io.EOF at its end), once returned by a read
}

func newScanner(src io.Reader) *scanner {
	return &scanner{src: src, buf: make([]byte, readSize+1)}
}

// next returns the next byte; false at the end of the stream or on a read
// error (s.err says which).
func (s *scanner) next() (byte, bool) {
	if p := s.pos; p < s.end {
		s.pos = p + 1
		return s.buf[p], true
	}
	return s.refill()
}

func (s *scanner) refill() (byte, bool) {
	if s.err != nil {
		return 0, false
	}
	keep := 0
	if s.end > 0 {
		// The last byte read stays, so that unread works across a refill.
		s.nl += bytes.Count(s.buf[:s.end-1], newline)
		s.base += int64(s.end - 1)
		s.buf[0] = s.buf[s.end-1]
		keep = 1
	}
	s.pos, s.end = keep, keep
	for range 100 { // as bufio gives up on a reader that returns nothing
		n, err := s.src.Read(s.buf[keep : keep+readSize])
		s.end = keep + n
		if err != nil {
			s.err = err
		}
		if n > 0 {
			b := s.buf[s.pos]
			s.pos++
			return b, true
		}
		if err != nil {
			return 0, false
		}
	}
	s.err = io.ErrNoProgress
	return 0, false
}

var newline = []byte{'\n'}

// unread steps back over the byte next returned.
func (s *scanner) unread() { s.pos-- }

// line is the line of the reading position (1 for the first).
func (s *scanner) line() int { return 1 + s.nl + bytes.Count(s.buf[:s.pos], newline) }

// offset is the number of bytes read up to the reading position.
func (s *scanner) offset() int64 { return s.base + int64(s.pos) }

// errEOF is what must() answers at the end of the stream: the parser turns
// it into the decoder's "unexpected EOF".
var errEOF = io.ErrUnexpectedEOF

// must returns the next byte, or the error that stops the document: a
// truncated one, or the stream's own.
func (s *scanner) must() (byte, error) {
	if b, ok := s.next(); ok {
		return b, nil
	}
	return 0, s.stop()
}

// stop is the error of a read that returned nothing.
func (s *scanner) stop() error {
	if s.err == io.EOF {
		return errEOF
	}
	return s.err
}

// space skips white space.
func (s *scanner) space() {
	for {
		b, ok := s.next()
		if !ok {
			return
		}
		if b != ' ' && b != '\n' && b != '\t' && b != '\r' {
			s.unread()
			return
		}
	}
}

// isNameByte reports the ASCII bytes a name may hold; any byte from 0x80
// is read into a name too, and the whole judged by validName.
func isNameByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '.' || c == '-'
}

// readName appends a name's bytes to dst; false when the next byte cannot
// start one (it is left unread).
func (s *scanner) readName(dst []byte) ([]byte, bool, error) {
	b, err := s.must()
	if err != nil {
		return dst, false, err
	}
	if b < utf8.RuneSelf && !isNameByte(b) {
		s.unread()
		return dst, false, nil
	}
	dst = append(dst, b)
	for {
		// The name's bytes still in the buffer, at once.
		i := s.pos
		for i < s.end && (s.buf[i] >= utf8.RuneSelf || isNameByte(s.buf[i])) {
			i++
		}
		dst = append(dst, s.buf[s.pos:i]...)
		s.pos = i
		b, err := s.must()
		if err != nil {
			return dst, false, err
		}
		if b < utf8.RuneSelf && !isNameByte(b) {
			s.unread()
			return dst, true, nil
		}
		dst = append(dst, b)
	}
}

// validName is the XML name rule: a letter, '_' or ':' first, then also
// digits, '-' and '.'. A name with bytes beyond ASCII is judged by the
// standard decoder on a one-element document, so the two agree on the
// Unicode classes; only hostile files take that path.
func validName(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	ascii := true
	for i, c := range name {
		switch {
		case c >= utf8.RuneSelf:
			ascii = false
		case i == 0 && ('0' <= c && c <= '9' || c == '-' || c == '.'):
			return false
		}
	}
	if ascii {
		return true
	}
	// Colons are name characters anywhere; replaced, they cannot make the
	// decoder read a prefix.
	doc := append(append([]byte{'<'}, bytes.ReplaceAll(name, []byte{':'}, []byte{'_'})...), '/', '>')
	_, err := xml.NewDecoder(bytes.NewReader(doc)).Token()
	return err == nil
}

// splitName splits a qualified name at its colon, as the decoder does:
// none, or one with text on both sides; more than one colon is no name.
func splitName(name []byte) (prefix, local []byte, ok bool) {
	i := bytes.IndexByte(name, ':')
	if i < 0 {
		return nil, name, true
	}
	if bytes.IndexByte(name[i+1:], ':') >= 0 {
		return nil, nil, false
	}
	if i == 0 || i == len(name)-1 {
		return nil, name, true
	}
	return name[:i], name[i+1:], true
}

// entities are the predefined ones, the only ones accepted.
var entities = map[string]byte{"lt": '<', "gt": '>', "amp": '&', "apos": '\'', "quot": '"'}

// textMode is where character data is read.
type textMode int

const (
	inText   textMode = iota // between markup, up to the next '<'
	inCDATA                  // inside <![CDATA[, up to "]]>"
	inQuotes                 // an attribute value, up to its closing quote
)

// charData reads character data, checks it and appends it, decoded, to dst
// (with keep false it only checks it). quote is the closing quote in
// inQuotes. With sink, dst goes to collect whenever it grows past
// flushAt, so that a long text is never held whole.
func (p *parser) charData(mode textMode, quote byte, dst []byte, keep, sink bool) ([]byte, error) {
	s := p.s
	var b0, b1 byte // the two raw bytes before, for "]]>" and "\r\n"
	brackets := 0   // ']' held back in CDATA, in case they end it
	var seq [utf8.UTFMax]byte
	for {
		if brackets == 0 {
			// A run of plain ASCII (no markup, reference, bracket, quote or
			// control byte) is taken from the buffer at once.
			i := s.pos
			for i < s.end && plain[s.buf[i]] {
				i++
			}
			if i > s.pos {
				if keep {
					dst = append(dst, s.buf[s.pos:i]...)
				}
				b0, b1 = 0, s.buf[i-1]
				if i-s.pos > 1 {
					b0 = s.buf[i-2]
				}
				s.pos = i
				if sink && len(dst) >= flushAt {
					p.collect(dst)
					dst = dst[:0]
				}
			}
		}
		b, ok := s.next()
		if !ok {
			if mode == inText {
				return dst, nil
			}
			if err := s.stop(); err != errEOF {
				return dst, err
			}
			if mode == inCDATA {
				return dst, p.syntax("unexpected EOF in CDATA section")
			}
			return dst, p.syntax("unexpected EOF")
		}
		if mode == inCDATA {
			if b == ']' {
				brackets++
				b0, b1 = b1, b
				continue
			}
			if b == '>' && brackets >= 2 {
				if keep {
					for range brackets - 2 {
						dst = append(dst, ']')
					}
				}
				return dst, nil
			}
			if keep {
				for range brackets {
					dst = append(dst, ']')
				}
			}
			brackets = 0
		} else {
			if mode == inText && b0 == ']' && b1 == ']' && b == '>' {
				return dst, p.syntax("unescaped ]]> not in CDATA section")
			}
			if b == '<' {
				if mode == inQuotes {
					return dst, p.syntax("unescaped < inside quoted string")
				}
				s.unread()
				return dst, nil
			}
			if mode == inQuotes && b == quote {
				return dst, nil
			}
			if b == '&' {
				var err error
				if dst, err = p.entity(dst, keep); err != nil {
					return dst, err
				}
				b0, b1 = 0, 0
				continue
			}
		}
		switch {
		case b >= utf8.RuneSelf:
			r, n, err := p.rune(b, &seq)
			if err != nil {
				return dst, err
			}
			if !inCharacterRange(r) {
				return dst, p.syntax(fmt.Sprintf("illegal character code %U", r))
			}
			if keep {
				dst = append(dst, seq[:n]...)
			}
		case b == '\r':
			if keep {
				dst = append(dst, '\n')
			}
		case b == '\n' && b1 == '\r':
			// already written as the '\n' of '\r'
		case b < 0x20 && b != '\t' && b != '\n':
			return dst, p.syntax(fmt.Sprintf("illegal character code %U", rune(b)))
		default:
			if keep {
				dst = append(dst, b)
			}
		}
		b0, b1 = b1, b
		if sink && len(dst) >= flushAt {
			p.collect(dst)
			dst = dst[:0]
		}
	}
}

// plain marks the bytes charData takes as they are in any mode: printable
// ASCII and tab and line feed, but for markup, references, brackets and
// quotes.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x7F; c++ {
		t[c] = true
	}
	t['\t'], t['\n'] = true, true
	for _, c := range "<>&]\"'" {
		t[c] = false
	}
	return t
}()

// flushAt is how much character data is gathered before it is handed on.
const flushAt = 4096

// rune reads the rest of the UTF-8 sequence that lead starts into seq and
// decodes it. Bytes that are not a whole, valid sequence are "invalid
// UTF-8", as an incomplete one at the end of a text is.
func (p *parser) rune(lead byte, seq *[utf8.UTFMax]byte) (rune, int, error) {
	n := 0
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		n = 2
	case lead >= 0xE0 && lead <= 0xEF:
		n = 3
	case lead >= 0xF0 && lead <= 0xF4:
		n = 4
	default:
		return 0, 0, p.syntax("invalid UTF-8")
	}
	seq[0] = lead
	for i := 1; i < n; i++ {
		c, ok := p.s.next()
		if !ok {
			if err := p.s.stop(); err != errEOF {
				return 0, 0, err
			}
			return 0, 0, p.syntax("invalid UTF-8")
		}
		if c&0xC0 != 0x80 {
			// Not a continuation: the sequence is cut short. The byte is
			// left for the caller, which stops at the error anyway.
			p.s.unread()
			return 0, 0, p.syntax("invalid UTF-8")
		}
		seq[i] = c
	}
	r, size := utf8.DecodeRune(seq[:n])
	if r == utf8.RuneError && size <= 1 {
		return 0, 0, p.syntax("invalid UTF-8")
	}
	return r, n, nil
}

// inCharacterRange is XML's Char production.
func inCharacterRange(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// entity reads a reference after its '&' and appends what it stands for.
// Numeric references to any code point are read, and the character then
// judged like any other; only the five predefined names are known.
func (p *parser) entity(dst []byte, keep bool) ([]byte, error) {
	s := p.s
	ref := append(p.ref[:0], '&')
	defer func() { p.ref = ref[:0] }()
	b, err := s.must()
	if err != nil {
		return dst, p.eof(err)
	}
	var r rune = -1
	if b == '#' {
		ref = append(ref, b)
		if b, err = s.must(); err != nil {
			return dst, p.eof(err)
		}
		hex := b == 'x'
		if hex {
			ref = append(ref, b)
			if b, err = s.must(); err != nil {
				return dst, p.eof(err)
			}
		}
		start := len(ref)
		for '0' <= b && b <= '9' || hex && ('a' <= b && b <= 'f' || 'A' <= b && b <= 'F') {
			ref = append(ref, b)
			if b, err = s.must(); err != nil {
				return dst, p.eof(err)
			}
		}
		if b != ';' {
			s.unread()
		} else {
			digits := ref[start:]
			ref = append(ref, ';')
			if v, ok := codePoint(digits, hex); ok {
				r = v
			}
		}
	} else {
		s.unread()
		if ref, _, err = s.readName(ref); err != nil {
			return dst, p.eof(err)
		}
		if b, err = s.must(); err != nil {
			return dst, p.eof(err)
		}
		if b != ';' {
			s.unread()
		} else if c, ok := entities[string(ref[1:])]; ok {
			if keep {
				dst = append(dst, c)
			}
			return dst, nil
		} else {
			ref = append(ref, ';')
		}
	}
	if r >= 0 {
		// string(rune) makes U+FFFD of a surrogate, as the decoder's does.
		var enc [utf8.UTFMax]byte
		n := utf8.EncodeRune(enc[:], r)
		if d, _ := utf8.DecodeRune(enc[:n]); !inCharacterRange(d) {
			return dst, p.syntax(fmt.Sprintf("illegal character code %U", d))
		}
		if keep {
			dst = append(dst, enc[:n]...)
		}
		return dst, nil
	}
	msg := "invalid character entity " + string(ref)
	if ref[len(ref)-1] != ';' {
		msg += " (no semicolon)"
	}
	return dst, p.syntax(msg)
}

// codePoint reads the digits of a numeric reference: at most
// unicode.MaxRune, and at least one digit.
func codePoint(digits []byte, hex bool) (rune, bool) {
	if len(digits) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		default:
			d = uint64(c-'A') + 10
		}
		if hex {
			v = v*16 + d
		} else {
			v = v*10 + d
		}
		if v > utf8.MaxRune {
			return 0, false
		}
	}
	return rune(v), true
}

// eof turns the end of the stream inside markup into the decoder's words.
func (p *parser) eof(err error) error {
	if err == errEOF {
		return p.syntax("unexpected EOF")
	}
	return err
}
