package registry

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
)

// Kind classifies a refusal. Each face maps a Kind to its own artefact once:
// an HTTP status and problem type, or an MCP tool error with the same fields.
type Kind int

// The kinds, in the order of their HTTP statuses. KindInternal is the zero
// value so that an unclassified error is never mistaken for a refusal.
const (
	KindInternal             Kind = iota // 500: a fault of ours; the cause is logged, never shown
	KindMalformed                        // 400: the request cannot be read (bad header, bad JSON)
	KindUnauthenticated                  // 401: no valid credential
	KindForbidden                        // 403: the credential lacks the operation's scope
	KindNotFound                         // 404: unknown, or not the caller's (the same answer)
	KindConflict                         // 409: a business rule or an idempotency key used with another body
	KindPreconditionFailed               // 412: the expected version is stale
	KindTooLarge                         // 413: the request body is over the limit, the same on both faces
	KindInvalid                          // 422: arguments or the merged record break a rule
	KindLocked                           // 423: the record is locked (a trip that has started)
	KindPreconditionRequired             // 428: the expected version is missing
	KindRateLimited                      // 429: the declared per-user limit is reached
	KindUpstream                         // 502: a provider we depend on failed
	KindUnavailable                      // 503: a dependency of ours is down
)

var kindNames = map[Kind]string{
	KindInternal:             "internal",
	KindMalformed:            "malformed",
	KindUnauthenticated:      "unauthenticated",
	KindForbidden:            "insufficient-scope",
	KindNotFound:             "not-found",
	KindConflict:             "conflict",
	KindPreconditionFailed:   "precondition-failed",
	KindTooLarge:             "too-large",
	KindInvalid:              "invalid",
	KindLocked:               "locked",
	KindPreconditionRequired: "precondition-required",
	KindRateLimited:          "rate-limited",
	KindUpstream:             "upstream",
	KindUnavailable:          "unavailable",
}

// String is the stable slug of the kind, used in problem type URIs.
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "internal"
}

// Kinds lists every kind, for documentation and exhaustive tests.
func Kinds() []Kind {
	out := make([]Kind, 0, len(kindNames))
	for k := KindInternal; k <= KindUnavailable; k++ {
		out = append(out, k)
	}
	return out
}

// NotFoundDetail is the one answer for an id that is unknown or someone
// else's: fixed text, the id never echoed, so nothing tells them apart. A
// store that finds a record gone after the owner guard answers it too.
const NotFoundDetail = "not found among your resources; list yours to find the right id"

// PublicNotFoundDetail is NotFoundDetail for an operation anyone may call
// without a token (Public): its caller has no resources to be told about.
const PublicNotFoundDetail = "nothing is published at this address; it may have been withdrawn"

// NotFoundFor is the one not-found answer of operation op: NotFoundDetail,
// or PublicNotFoundDetail when op is Public.
func NotFoundFor(op *Operation) *Error {
	if op != nil && op.Scope == Public {
		return Fail(KindNotFound, PublicNotFoundDetail)
	}
	return Fail(KindNotFound, NotFoundDetail)
}

// Violation names one field of the input or of the merged record and why it
// was refused. Field is a JSON name (dotted for nested values).
type Violation struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// Error is the one error type of the domain. Faces map it; modules and
// guards return it. Detail is fixed text: never an id, never unbounded input.
type Error struct {
	Kind       Kind
	Code       string      // optional stable sub-code, e.g. "confirmation_mismatch"
	Detail     string      // what happened and what to do next, for a person or a model
	Violations []Violation // for KindInvalid and named argument refusals
	RetryAfter int         // seconds, for KindRateLimited and KindUnavailable
	Rule       *RateRule   // for KindRateLimited: the limit reached
	Scope      Scope       // the missing scope, for KindForbidden
	// Held are the scopes the refused token carries, for KindForbidden: a
	// step-up asks for them and Scope together, so that the new token
	// does not lose what the old one could do.
	Held []Scope
	Err  error // the cause; logged, never shown
}

// Error implements error.
func (e *Error) Error() string {
	s := e.Kind.String() + ": " + e.Detail
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Err }

// Fail returns an Error of the given kind with a fixed detail.
func Fail(k Kind, detail string) *Error { return &Error{Kind: k, Detail: detail} }

// Invalid returns a KindInvalid error listing every violation.
func Invalid(detail string, vs ...Violation) *Error {
	return &Error{Kind: KindInvalid, Detail: detail, Violations: vs}
}

// UnavailableRetryAfter is the wait, in seconds, a refusal for a dependency
// that is down suggests.
const UnavailableRetryAfter = 5

// Unavailable refuses a call because a dependency of ours is down (503
// with Retry-After): never a 500 for an outage. The cause is logged, never
// shown.
func Unavailable(detail string, err error) *Error {
	return &Error{Kind: KindUnavailable, Detail: detail, RetryAfter: UnavailableRetryAfter, Err: err}
}

// Internal wraps a cause that the caller must not see.
func Internal(err error) *Error {
	return &Error{Kind: KindInternal, Detail: "an internal error occurred; try again later", Err: err}
}

// AsError classifies any error: an *Error is returned as is, anything else
// becomes KindInternal with the original as its hidden cause.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Kind == KindInternal && e.Err != nil && Unreachable(e.Err) {
			// Wrapped as internal on its way (a guard's own failure):
			// still a dependency that cannot be reached.
			return Unavailable(UnreachableDetail, err)
		}
		return e
	}
	if Unreachable(err) {
		return Unavailable(UnreachableDetail, err)
	}
	return Internal(err)
}

// closedConnection reports whether err wraps the PostgreSQL driver's
// "conn closed" (pgconn.ErrConnClosed: its connection went away), named by
// its text, since the registry imports no driver.
func closedConnection(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if e.Error() == "conn closed" {
			return true
		}
	}
	return false
}

// UnreachableDetail is the refusal of a call a dependency could not
// answer because it cannot be reached.
const UnreachableDetail = "a service the server depends on cannot be reached; try again shortly"

// Unreachable reports whether err says a dependency (the database, most
// often) could not be reached or dropped the connection: a refused or
// reset connection, a dial that failed, an answer cut off, a connection
// the driver found broken or closed, or a PostgreSQL connection exception (SQLSTATE class 08) or
// shutdown (57P01 to 57P03, while it restarts). Such a call is refused as
// unavailable (503 with Retry-After), once, where each face maps an
// error, instead of answering 500: nothing about the call was wrong.
func Unreachable(err error) bool {
	var op *net.OpError
	var state interface{ SQLState() string }
	var driverErr interface{ SafeToRetry() bool } // the PostgreSQL driver's own errors (pgconn)
	switch {
	case errors.As(err, &driverErr) && (errors.Is(err, io.EOF) || closedConnection(err)),
		errors.Is(err, io.ErrUnexpectedEOF): // an answer cut off: the connection closed under it
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, driver.ErrBadConn):
		return true
	case errors.As(err, &op) && op.Op == "dial":
		return true
	case errors.As(err, &state):
		code := state.SQLState()
		return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03"
	}
	return false
}

// MaxQuote bounds how much of a caller's value is ever quoted back: in an
// agent loop a quoted value is third-party text by round trip.
const MaxQuote = 64

// Clip cuts a caller's text at MaxQuote runes, for a field name that must
// be named in a refusal but may be anything.
func Clip(s string) string { return clipTo(s, MaxQuote) }

// Quote renders a caller's value for an error message, cut at MaxQuote runes.
func Quote(s string) string {
	r := []rune(s)
	if len(r) > MaxQuote {
		return fmt.Sprintf("%q…", string(r[:MaxQuote]))
	}
	return fmt.Sprintf("%q", s)
}

// ErrWroteWhileReading is the failure of a function a declaration gives
// the guards that wrote where it may only read: a Load, a Merge or an
// impact function runs in a read-only transaction (storage.Tx.ReadOnly),
// and a write there fails loudly, naming the function, on every engine.
var ErrWroteWhileReading = errors.New("a function that may only read wrote; " +
	"Load, Merge and impact functions must not write: the writing belongs in Handle, which runs after every guard")
