package registry

import "unicode"

// Hidden reports whether r is a character no text keeps: a control
// character (Unicode category Cc: NUL, the C0 set, DEL, the C1 set), the
// byte order mark U+FEFF, or a bidirectional embedding, override or
// isolate control (U+202A to U+202E, U+2066 to U+2069), which reorder what
// a reader sees. It is the one text rule of every path: text from a third
// party has them dropped where it enters (modules/route/text), and text a
// caller sends is refused naming its argument (the arguments guard), white
// space apart, which each path keeps or folds as it says.
func Hidden(r rune) bool {
	return unicode.Is(unicode.Cc, r) ||
		r == '\uFEFF' ||
		'\u202A' <= r && r <= '\u202E' ||
		'\u2066' <= r && r <= '\u2069'
}

// Refused reports whether a caller's text may not hold r: Hidden, and not
// white space (a tab or a line break is text; BEL, ESC and U+202E are not).
func Refused(r rune) bool { return Hidden(r) && !unicode.IsSpace(r) }
