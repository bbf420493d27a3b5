package gpx

import (
	"bytes"
	"io"
)

// guardReader sits between the upload and the XML decoder. It refuses the
// stream once more than the limit has been read, like io.LimitedReader but
// with an error instead of a silent EOF (a cut file would parse as truncated
// XML and hide the real reason), and it refuses any "<!DOCTYPE" in any case
// as soon as its bytes go by, comments and CDATA included, before the decoder
// can act on it.
type guardReader struct {
	r         io.Reader
	remaining int64
	matched   int // bytes of doctypeMarker matched at the end of the last read
	err       error
}

// doctypeMarker is compared against lower-cased input; '<' occurs only at its
// start, so a mismatch can restart the match from scratch.
const doctypeMarker = "<!doctype"

// readError marks an error from the underlying reader, so the parser can tell
// a broken connection from a broken document.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

func (g *guardReader) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	// Reading one byte past the limit tells "exactly at the limit" (accepted)
	// from "over it" (refused).
	if int64(len(p)) > g.remaining+1 {
		p = p[:g.remaining+1]
	}
	n, err := g.r.Read(p)
	if int64(n) > g.remaining {
		g.err = ErrTooLarge
		return 0, g.err
	}
	g.remaining -= int64(n)
	if g.scan(p[:n]) {
		g.err = ErrDoctype
		return 0, g.err
	}
	if err != nil && err != io.EOF {
		err = &readError{err: err}
	}
	return n, err
}

// scan reports whether the marker completes within b, carrying a partial match
// over from the previous read so a marker split across reads is still found.
func (g *guardReader) scan(b []byte) bool {
	for i := 0; i < len(b); {
		if g.matched == 0 {
			// Jump to the next '<': most of a GPX file is digits and spaces.
			j := bytes.IndexByte(b[i:], '<')
			if j < 0 {
				return false
			}
			i += j
		}
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == doctypeMarker[g.matched]:
			g.matched++
			if g.matched == len(doctypeMarker) {
				return true
			}
		case c == '<':
			g.matched = 1
		default:
			g.matched = 0
		}
		i++
	}
	return false
}
