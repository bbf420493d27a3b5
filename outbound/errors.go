package outbound

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// The refusals Get returns. Test with errors.Is; none of their messages
// repeats the URL, the host or an address, so they are safe to show.
var (
	// ErrForbiddenAddress refuses a destination that is not a public unicast
	// address (loopback, private, link-local, metadata, CGNAT, multicast, …),
	// or a host spelled as a non-canonical IPv4 number. The error returned is
	// a *ForbiddenAddressError telling which address, for logs.
	ErrForbiddenAddress = errors.New("outbound: destination address not allowed")
	// ErrScheme refuses a URL, first or redirected to, whose scheme is not
	// https (or http when Options.AllowHTTP is set).
	ErrScheme = errors.New("outbound: URL scheme not allowed")
	// ErrHostNotAllowed refuses a request outside Options.Origin, when the
	// client is locked to one, and is the reason of an ErrRedirect leaving
	// the origin of the first request: another scheme, host or port.
	ErrHostNotAllowed = errors.New("outbound: origin not allowed")
	// ErrTooManyRedirects is the reason of an ErrRedirect once a response
	// would be the redirect after Options.MaxRedirects.
	ErrTooManyRedirects = errors.New("outbound: too many redirects")
	// ErrTooLarge is returned once the response body exceeds
	// Options.MaxBytes; it is detected while reading, whatever the response
	// announced.
	ErrTooLarge = errors.New("outbound: response larger than the limit")
	// ErrRedirect refuses a redirect without following it. The error also
	// matches its reason: ErrHostNotAllowed (another origin), ErrScheme,
	// ErrURL (a host name outside ASCII, say) or ErrTooManyRedirects. A
	// refused redirect is final: Get does not retry it, and a caller should
	// not either, since the server will answer the same.
	ErrRedirect = errors.New("outbound: redirect refused")
	// ErrResolve is a host name that did not resolve: not found, no
	// address, or the resolver failed. errors.As gives the resolver's own
	// error (a *net.DNSError, typically) for logs. Get does not retry it.
	ErrResolve = errors.New("outbound: host name did not resolve")
	// ErrURL refuses a URL that does not parse, has no host, has a host
	// name outside ASCII (write an IDN in punycode) or carries credentials.
	ErrURL = errors.New("outbound: malformed URL")
)

// ForbiddenAddressError is ErrForbiddenAddress with what was refused. Its
// message is the sentinel's, fixed: the fields are for logs only, because
// echoing resolved addresses to a caller would turn the fetcher into a probe
// of the internal network.
type ForbiddenAddressError struct {
	// Host is the host name or literal being dialled; empty when the refusal
	// came from the connect-time check, which only sees an address.
	Host string
	// Addr is the refused address; the zero Addr when Host was refused for
	// its spelling before any resolution.
	Addr netip.Addr
}

// Error returns the fixed message of ErrForbiddenAddress.
func (e *ForbiddenAddressError) Error() string { return ErrForbiddenAddress.Error() }

// Unwrap makes errors.Is(err, ErrForbiddenAddress) hold.
func (e *ForbiddenAddressError) Unwrap() error { return ErrForbiddenAddress }

// StatusError is a final response outside 2xx. Get retries 429 and 5xx
// before returning one; any other status is returned at once.
type StatusError struct {
	Code int
	// RetryAfter is the server's Retry-After in seconds form, 0 when absent.
	RetryAfter time.Duration
}

// Error gives the status code.
func (e *StatusError) Error() string { return fmt.Sprintf("outbound: status %d", e.Code) }

// retryable reports whether the status says "try again later".
func (e *StatusError) retryable() bool {
	return e.Code == 429 || e.Code >= 500
}

// redirectError is ErrRedirect with its reason.
type redirectError struct{ reason error }

// Error names the reason, a fixed sentinel: never the destination.
func (e *redirectError) Error() string {
	return ErrRedirect.Error() + ": " + strings.TrimPrefix(e.reason.Error(), "outbound: ")
}

// Unwrap makes errors.Is hold for ErrRedirect and for the reason.
func (e *redirectError) Unwrap() []error { return []error{ErrRedirect, e.reason} }

// errNoAddress is the cause of an ErrResolve when the resolver answered no
// address at all.
var errNoAddress = errors.New("outbound: no address")

// resolveError is ErrResolve with the resolver's error. Its message is
// fixed: a *net.DNSError's repeats the host name.
type resolveError struct{ cause error }

// Error returns the fixed message of ErrResolve.
func (e *resolveError) Error() string { return ErrResolve.Error() }

// Unwrap makes errors.Is hold for ErrResolve and errors.As reach the cause.
func (e *resolveError) Unwrap() []error { return []error{ErrResolve, e.cause} }
