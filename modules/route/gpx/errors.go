package gpx

import (
	"errors"
	"fmt"
)

// The refusals a caller maps to answers: ErrTooLarge is a 400 (the upload
// limit), the others and *SyntaxError are a 422 naming what is wrong.
var (
	// ErrDoctype refuses any document type declaration, wherever it appears:
	// GPX never needs one and it is the door to entity expansion attacks.
	ErrDoctype = errors.New("gpx: document type declarations are not accepted")
	// ErrTooLarge is returned once the stream exceeds the parser's MaxBytes.
	ErrTooLarge = errors.New("gpx: file is larger than the limit")
	// ErrNotGPX is returned when the root element is not <gpx>, or there is none.
	ErrNotGPX = errors.New("gpx: not a GPX document")
	// ErrNoTrackPoints is returned for a well-formed GPX without any <trkpt>;
	// routes and waypoints alone are not read.
	ErrNoTrackPoints = errors.New("gpx: no track point")
)

// SyntaxError is malformed XML or an unreadable track point. Line and Offset
// (bytes from the start of the stream) locate it; Reason is short, fixed or
// taken from the XML decoder, and safe to show to the uploader.
type SyntaxError struct {
	Line   int
	Offset int64
	Reason string
	Err    error // the decoder's error, when there is one
}

// Error gives the line and the reason.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("gpx: line %d: %s", e.Line, e.Reason)
}

// Unwrap returns the decoder's error, if any.
func (e *SyntaxError) Unwrap() error { return e.Err }
