package fetch

import (
	"errors"
	"fmt"
	"net/netip"
	"time"
)

// The refusals Get returns. Test with errors.Is; none of their messages
// repeats the URL, the host or an address, so they are safe to show.
var (
	// ErrForbiddenAddress refuses a destination that is not a public unicast
	// address (loopback, private, link-local, metadata, CGNAT, multicast, …),
	// or a host spelled as a non-canonical IPv4 number. The error returned is
	// a *ForbiddenAddressError telling which address, for logs.
	ErrForbiddenAddress = errors.New("fetch: destination address not allowed")
	// ErrScheme refuses a URL, first or redirected to, whose scheme is not
	// https (or http when Options.AllowHTTP is set).
	ErrScheme = errors.New("fetch: URL scheme not allowed")
	// ErrHostNotAllowed refuses a request or redirect to a host other than
	// Options.Host, when the client is locked to one.
	ErrHostNotAllowed = errors.New("fetch: host not allowed")
	// ErrTooManyRedirects is returned once a response would be the redirect
	// after Options.MaxRedirects.
	ErrTooManyRedirects = errors.New("fetch: too many redirects")
	// ErrTooLarge is returned once the response body exceeds
	// Options.MaxBytes; it is detected while reading, whatever the response
	// announced.
	ErrTooLarge = errors.New("fetch: response larger than the limit")
	// ErrURL refuses a URL that does not parse, has no host or carries
	// credentials.
	ErrURL = errors.New("fetch: malformed URL")
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
func (e *StatusError) Error() string { return fmt.Sprintf("fetch: status %d", e.Code) }

// retryable reports whether the status says "try again later".
func (e *StatusError) retryable() bool {
	return e.Code == 429 || e.Code >= 500
}
