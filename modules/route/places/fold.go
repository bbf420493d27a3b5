package places

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold is the form names and queries are compared in: lower case, accents
// dropped ("Besançon" and "besancon" fold alike, so do "München" and
// "munchen"), and every run of spaces and punctuation turned into one space,
// so "Saint-Étienne", "saint etienne" and "SAINT  ETIENNE" are one key and
// each word of a name starts after a space. Letters that carry no separable
// accent get their usual Latin spelling (ß ss, æ ae, œ oe, ø o, ł l, đ d,
// þ th, ı i). Other scripts keep their letters.
func Fold(s string) string {
	var f folder
	return string(f.append(nil, s))
}

// folder folds names into a caller's buffer. It reuses its decomposition
// iterator, so folding a hundred thousand names at load allocates nothing
// per name.
type folder struct {
	it norm.Iter
}

// foldOut appends folded runes, turning each run of separators into one
// space and dropping separators at either end.
type foldOut struct {
	dst     []byte
	start   int
	pending bool
}

func (o *foldOut) sep() { o.pending = true }

func (o *foldOut) rune(r rune) {
	if o.pending && len(o.dst) > o.start {
		o.dst = append(o.dst, ' ')
	}
	o.pending = false
	if r < utf8.RuneSelf {
		o.dst = append(o.dst, byte(r))
		return
	}
	o.dst = utf8.AppendRune(o.dst, r)
}

// fold appends one decomposed rune.
func (o *foldOut) fold(r rune) {
	if unicode.Is(unicode.Mn, r) {
		return // the accent a decomposition set apart
	}
	r = unicode.ToLower(r)
	if sp, ok := spelled[r]; ok {
		for _, c := range sp {
			o.rune(c)
		}
		return
	}
	if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
		o.rune(r)
		return
	}
	o.sep()
}

// append appends Fold(s) to dst.
func (f *folder) append(dst []byte, s string) []byte {
	o := foldOut{dst: dst, start: len(dst)}
	if isASCII(s) {
		// Most names are ASCII; this path skips decomposition entirely.
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				o.rune(rune(c))
			case 'A' <= c && c <= 'Z':
				o.rune(rune(c + 'a' - 'A'))
			default:
				o.sep()
			}
		}
		return o.dst
	}

	// NFKD splits "ç" into "c" and a combining cedilla, and also turns
	// compatibility forms (ligatures, full-width letters) into plain ones.
	for f.it.InitString(norm.NFKD, s); !f.it.Done(); {
		for b := f.it.Next(); len(b) > 0; {
			r, n := utf8.DecodeRune(b)
			b = b[n:]
			o.fold(r)
		}
	}
	return o.dst
}

// spelled holds the lower-case letters that no decomposition reduces to a
// Latin base letter, with the spelling a traveller types without them.
var spelled = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d",
	'þ': "th", 'ı': "i", 'ħ': "h", 'ŧ': "t", 'ŀ': "l", 'ĸ': "k",
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
