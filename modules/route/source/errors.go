package source

import "errors"

// The validation_error codes of pipeline.md §1.2.
const (
	CodeFetchFailed = "ROUTE_FETCH_FAILED"
	CodeEmptyRoute  = "EMPTY_ROUTE"
)

// Error is a failure the pipeline publishes as validation_error {code}.
// Its message is fixed per code, so it can be shown as it is: causes name
// ids, addresses and provider answers, which belong in logs only.
type Error struct {
	Code string // CodeFetchFailed or CodeEmptyRoute
	Err  error  // the cause; logged, never shown
}

// Error returns the code's fixed message.
func (e *Error) Error() string {
	if e.Code == CodeEmptyRoute {
		return "source: the route has no points"
	}
	return "source: the route could not be fetched from its source"
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is matches any *Error with the same code, so errors.Is(err,
// ErrFetchFailed) holds whatever the cause.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

var (
	// ErrFetchFailed is any failure to get a route: unsupported URL,
	// private or removed route (403, 404), provider down, bad page, refused
	// address. Compare with errors.Is; errors.As gives the cause.
	ErrFetchFailed = &Error{Code: CodeFetchFailed}
	// ErrEmptyRoute is a route that was fetched and read but has no point.
	ErrEmptyRoute = &Error{Code: CodeEmptyRoute}
	// ErrUnsupported is a URL matching no source pattern. Recognise returns
	// it as an *UnsupportedError with the reason; Fetch returns it wrapped
	// in ErrFetchFailed, since the pipeline reports both alike.
	ErrUnsupported = errors.New("source: unsupported route URL")
)

// UnsupportedError is ErrUnsupported with the rule the URL broke. Its
// message names the reason only, never the URL.
type UnsupportedError struct {
	Reason Reason
}

// Error names the reason.
func (e *UnsupportedError) Error() string {
	return ErrUnsupported.Error() + ": " + string(e.Reason)
}

// Is makes errors.Is(err, ErrUnsupported) hold.
func (e *UnsupportedError) Is(target error) bool { return target == ErrUnsupported }

// failed wraps cause as ErrFetchFailed, keeping an ErrEmptyRoute as it is.
func failed(cause error) error {
	var e *Error
	if errors.As(cause, &e) {
		return e
	}
	return &Error{Code: CodeFetchFailed, Err: cause}
}

// empty is ErrEmptyRoute with a cause for logs.
func empty(cause error) error {
	return &Error{Code: CodeEmptyRoute, Err: cause}
}
