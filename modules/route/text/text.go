// Package text is the one rule for text that comes from a third party: a
// route file (GPX), a provider's page or answer (Komoot, Strava,
// RideWithGPS), an OpenStreetMap extract or Overpass answer, a geocoder
// (Nominatim), a routing engine (BRouter). It is applied where the text
// enters, so that storage, the API, the exports and the public share never
// see it unbounded or unclean.
//
// The rule, which Clean and Builder apply alike:
//
//   - invalid UTF-8 becomes U+FFFD, the replacement character;
//   - control characters (Unicode category Cc: NUL, the C0 set, DEL, the C1
//     set) are dropped, and so are the byte order mark U+FEFF and the
//     bidirectional embedding, override and isolate controls (U+202A to
//     U+202E, U+2066 to U+2069), which reorder what a reader sees;
//   - every run of white space (unicode.IsSpace: tabs, line breaks, no-break
//     spaces, ideographic spaces, …) becomes one space, and there is none at
//     either end;
//   - the result is cut at the field's limit, counted in runes (characters,
//     as the API's maxLength counts them), on a rune boundary, with no space
//     left at the end. A cut is silent: third-party text is data, and a
//     route is better imported with a shortened name than refused for it.
//
// The limits per field are the Max constants. No other text from a third
// party is kept.
package text

import (
	"unicode"
	"unicode/utf8"

	"cairn.dev/cairn/registry"
)

// Limits, in runes, per kind of field.
const (
	// MaxTitle bounds a route's title: a GPX track name, a provider's
	// route, tour or collection name. It is the trip title's own limit.
	MaxTitle = 255
	// MaxName bounds the name of a place, a point of interest or a
	// waypoint.
	MaxName = 255
	// MaxDescription bounds a free-text description.
	MaxDescription = 2000
	// MaxAddress bounds an address or a place's display name ("Lyon,
	// Auvergne-Rhône-Alpes, France").
	MaxAddress = 512
	// MaxURL bounds a link, such as a point of interest's website.
	MaxURL = 2048
	// MaxValue bounds any other short value: an OpenStreetMap tag value
	// (opening hours, phone, stars, fee, …; OpenStreetMap itself stops at
	// 255), a type or a code.
	MaxValue = 255
	// MaxMessage bounds a third party's error message, kept for logs.
	MaxMessage = 200
)

// Clean applies the rule to s with a limit of limit runes (0 or less keeps
// nothing). Text that already follows it is returned as it is, without a
// copy.
func Clean(s string, limit int) string {
	if clean(s, limit) {
		return s
	}
	var b Builder
	b.Reset(limit)
	write(&b, s)
	return b.String()
}

// clean reports, for the common case of short printable ASCII, whether s
// already follows the rule.
func clean(s string, limit int) bool {
	if s == "" {
		return true
	}
	if len(s) > limit || s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		// s[i+1] exists after a space: s does not end with one.
		if c := s[i]; c < ' ' || c >= 0x7F || c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}

// Builder applies the rule to text given in pieces, as a streaming parser
// reads it: it holds at most its limit, and what comes after is read and
// dropped at once, so a name of megabytes costs no more memory than one of
// the limit's length. A character split across two pieces is put together.
// The zero value keeps nothing; call Reset with the limit first.
type Builder struct {
	limit   int
	buf     []byte
	runes   int  // runes in buf
	space   bool // white space seen since the last rune kept
	full    bool // a rune did not fit: the rest is dropped
	partial [utf8.UTFMax]byte
	np      int // bytes in partial: an incomplete rune at the end of the last piece
}

// Reset empties b and sets its limit, in runes; b keeps its memory.
func (b *Builder) Reset(limit int) {
	*b = Builder{limit: max(limit, 0), buf: b.buf[:0]}
}

// Write adds p. It never fails and always reports len(p), so b is an
// io.Writer.
func (b *Builder) Write(p []byte) (int, error) {
	write(b, p)
	return len(p), nil
}

// WriteString adds s, as Write.
func (b *Builder) WriteString(s string) (int, error) {
	write(b, s)
	return len(s), nil
}

// Cut reports whether text was dropped for the limit; white space at the
// end does not count.
func (b *Builder) Cut() bool { return b.full }

// String returns the text so far. An incomplete character left at the end
// of the last piece counts as invalid UTF-8: U+FFFD.
func (b *Builder) String() string {
	if b.np > 0 {
		b.np = 0
		b.rune(utf8.RuneError)
	}
	return string(b.buf)
}

// write adds p to b; strings and byte slices share it without a copy.
func write[T string | []byte](b *Builder, p T) {
	if b.full {
		return
	}
	i := 0
	if b.np > 0 {
		// Finish the rune the last piece cut: at most UTFMax-1 more bytes
		// are needed.
		var tmp [2 * utf8.UTFMax]byte
		held := copy(tmp[:], b.partial[:b.np])
		n := held + copy(tmp[held:held+utf8.UTFMax], p)
		b.np = 0
		at := 0
		for at < held {
			if !utf8.FullRune(tmp[at:n]) { // p was too short to finish it
				b.np = copy(b.partial[:], tmp[at:n])
				return
			}
			r, size := utf8.DecodeRune(tmp[at:n])
			b.rune(r)
			at += size
		}
		i = at - held
	}
	for i < len(p) && !b.full {
		if c := p[i]; c < utf8.RuneSelf {
			b.rune(rune(c))
			i++
			continue
		}
		// A conversion of at most UTFMax bytes: no allocation.
		head := string(p[i:min(len(p), i+utf8.UTFMax)])
		if !utf8.FullRuneInString(head) {
			b.np = copy(b.partial[:], head)
			return
		}
		r, size := utf8.DecodeRuneInString(head)
		b.rune(r)
		i += size
	}
}

// rune adds one decoded rune under the rule.
func (b *Builder) rune(r rune) {
	switch {
	case unicode.IsSpace(r): // before dropped: tab and line breaks are Cc too
		b.space = true
		return
	case dropped(r):
		return
	}
	need := 1
	if b.space && b.runes > 0 {
		need = 2
	}
	if b.runes+need > b.limit {
		b.full = true
		return
	}
	if need == 2 {
		b.buf = append(b.buf, ' ')
		b.runes++
	}
	b.space = false
	b.buf = utf8.AppendRune(b.buf, r)
	b.runes++
}

// dropped reports whether r is removed wherever it appears: the
// framework's one text rule (registry.Hidden), which refuses the same
// characters in what a caller sends.
func dropped(r rune) bool { return registry.Hidden(r) }
