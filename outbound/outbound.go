// Package outbound is the framework's HTTP client for addresses a caller
// chose (a route a person pasted, an OAuth client's metadata document),
// hardened against server-side request forgery. Any module that fetches
// such an address uses it; each sets its own limits in Options.
//
// A URL a caller gave decides where the server connects, so every
// connection is judged where it is made: the dialer resolves the host
// itself and refuses loopback, private, link-local (cloud metadata
// included), CGNAT, multicast and other special-purpose addresses, in IPv4,
// IPv6 and IPv4-mapped IPv6 alike, then checks the socket's peer once more.
// Judging at connect time, not when the URL is read, is what defeats DNS
// rebinding and redirects to internal hosts. On top of that: https only,
// host names in ASCII, at most two redirects, each judged again and none
// leaving the origin (scheme, host and port) of the URL first given, a
// 10 s budget for the whole fetch, a body cap (1 MiB unless set) enforced
// while reading, and two retries with back-off on 429, 5xx and transport
// errors. A refusal, a name that does not resolve and the size cap are
// final. Each refusal by the address rules is counted in
// metrics.SSRFRefusals, by reason.
package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"cairn.dev/cairn/metrics"
)

// Defaults for the zero Options.
const (
	DefaultTimeout      = 10 * time.Second
	DefaultMaxBytes     = 1 << 20 // 1 MiB: a document, not a download; a caller expecting more says so
	DefaultMaxRedirects = 2
	DefaultRetries      = 2
	DefaultRetryDelay   = 250 * time.Millisecond
	DefaultUserAgent    = "Cairn outbound"
)

// Resolver looks host names up; *net.Resolver satisfies it. Tests plug a
// map in to make a name resolve to a forbidden address.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configures a Client. The zero value is the production policy.
type Options struct {
	// AllowHTTP also accepts plain http URLs and redirects; for local
	// development and tests only.
	AllowHTTP bool
	// Allow lists prefixes reachable even though the address policy refuses
	// them, such as 127.0.0.1/32 for a local test server. Empty by default.
	// Hosts spelled as non-canonical IPv4 numbers stay refused whatever it
	// holds: no legitimate URL is written that way.
	Allow []netip.Prefix
	// Origin, when set, locks the client to one origin, given as a URL
	// ("https://api.example.com"; a path is ignored): a request whose
	// scheme, host or port differs fails with ErrHostNotAllowed before any
	// connection. The host is compared in ASCII lower case and the port
	// with the scheme's own filled in, so "https://api.example.com:443" is
	// the same origin; "api.example.com." and ":0443" are not. A malformed
	// Origin matches no URL. A caller talking to one provider locks its
	// client to it.
	//
	// Locked or not, a redirect never leaves the origin of the URL given to
	// Get; see ErrRedirect.
	Origin string
	// MaxRedirects caps the redirects followed; 0 means
	// DefaultMaxRedirects and a negative value follows none (internal
	// services).
	MaxRedirects int
	// Timeout bounds the whole of Get, retries and body included; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// MaxBytes caps the response body; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Retries is how many times a 429, a 5xx or a transport error is tried
	// again; 0 means DefaultRetries and a negative value none.
	Retries int
	// RetryDelay is the first back-off, doubled at each retry and jittered
	// down to half; 0 means DefaultRetryDelay. Tests set it to a millisecond.
	RetryDelay time.Duration
	// Resolver looks host names up; nil means net.DefaultResolver.
	Resolver Resolver
	// RootCAs verifies servers; nil means the system roots.
	RootCAs *x509.CertPool
	// Header is sent with every request (Accept, typically); User-Agent
	// defaults to DefaultUserAgent.
	Header http.Header
}

// Client fetches documents under the policy of its Options. It is safe for
// concurrent use and keeps connections alive, so make one per source and
// keep it.
type Client struct {
	allowHTTP    bool
	locked       bool   // Options.Origin was set
	origin       origin // the lock; the zero origin, which no URL has, when malformed
	maxRedirects int
	timeout      time.Duration
	maxBytes     int64
	retries      int
	retryDelay   time.Duration
	header       http.Header
	http         *http.Client
}

// Response is a successful (2xx) fetch, read to the end.
type Response struct {
	// URL is where the body came from, after redirects.
	URL    *url.URL
	Header http.Header
	Body   []byte
}

// New builds a Client.
func New(opts Options) *Client {
	c := &Client{
		allowHTTP:    opts.AllowHTTP,
		locked:       opts.Origin != "",
		maxRedirects: orDefault(opts.MaxRedirects, DefaultMaxRedirects),
		timeout:      orDefault(opts.Timeout, DefaultTimeout),
		maxBytes:     orDefault(opts.MaxBytes, DefaultMaxBytes),
		retries:      orDefault(opts.Retries, DefaultRetries),
		retryDelay:   orDefault(opts.RetryDelay, DefaultRetryDelay),
		header:       opts.Header.Clone(),
	}
	if c.locked {
		c.origin, _ = parseOrigin(opts.Origin)
	}
	if c.header == nil {
		c.header = http.Header{}
	}
	if c.header.Get("User-Agent") == "" {
		c.header.Set("User-Agent", DefaultUserAgent)
	}
	var resolver Resolver = net.DefaultResolver
	if opts.Resolver != nil {
		resolver = opts.Resolver
	}
	d := newDialer(policy{allow: normalisePrefixes(opts.Allow)}, resolver)
	transport := &http.Transport{
		// No proxy, whatever the environment says: through a proxy the
		// dialer would judge the proxy's address instead of the target's.
		Proxy:       nil,
		DialContext: d.DialContext,
		// A custom DialContext turns HTTP/2 off unless asked for.
		ForceAttemptHTTP2:      true,
		TLSClientConfig:        &tls.Config{RootCAs: opts.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    c.timeout,
		MaxResponseHeaderBytes: 64 << 10,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
	}
	c.http = &http.Client{Transport: transport, CheckRedirect: c.checkRedirect}
	return c
}

// orDefault maps the zero value to def and a negative one to zero, the
// convention of Options.
func orDefault[T int | int64 | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Get fetches rawURL and reads its body. Errors: ErrURL, ErrScheme,
// ErrHostNotAllowed, ErrForbiddenAddress, ErrRedirect (with the reason:
// ErrHostNotAllowed, ErrScheme, ErrURL or ErrTooManyRedirects), ErrResolve,
// ErrTooLarge, *StatusError, the context's error, or a transport error;
// after the retries, the last one.
func (c *Client) Get(ctx context.Context, rawURL string) (*Response, error) {
	resp, err := c.get(ctx, rawURL)
	if reason := refusalReason(err); reason != "" {
		metrics.SSRFRefusals.Inc(reason)
	}
	return resp, err
}

// refusalReason names the address rule err is a refusal by, "" for any
// other outcome: the reasons the SSRF refusals are counted under.
func refusalReason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrForbiddenAddress):
		return "forbidden_address"
	case errors.Is(err, ErrRedirect):
		return "redirect"
	case errors.Is(err, ErrHostNotAllowed):
		return "host_not_allowed"
	case errors.Is(err, ErrScheme):
		return "scheme"
	case errors.Is(err, ErrURL):
		return "url"
	}
	return ""
}

func (c *Client) get(ctx context.Context, rawURL string) (*Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, ErrURL
	}
	if err := c.checkURL(u); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	var last error
	for attempt := 0; ; attempt++ {
		resp, err := c.once(ctx, u)
		if err == nil {
			return resp, nil
		}
		last = err
		if attempt == c.retries || !retryable(err) {
			return nil, last
		}
		if !c.wait(ctx, attempt, err) {
			return nil, last
		}
	}
}

// checkURL applies the rules that a URL, first or redirected to, must meet
// before any connection; the address rules come at connect time.
func (c *Client) checkURL(u *url.URL) error {
	switch u.Scheme {
	case "https":
	case "http":
		if !c.allowHTTP {
			return ErrScheme
		}
	default:
		return ErrScheme
	}
	if u.Host == "" || u.User != nil || u.Opaque != "" {
		return ErrURL
	}
	o, ok := originOf(u)
	if !ok {
		return ErrURL
	}
	if c.locked && o != c.origin {
		return ErrHostNotAllowed
	}
	return nil
}

// checkRedirect judges each redirect before it is followed: within the
// limit, a URL Get would accept, and the origin of the first request. The
// origin rule is what keeps a provider (or whoever answers for it) from
// sending the client to another port of the same host, the server's own
// health or admin listener included, or to another name for the same
// address; an https upgrade is another origin too.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.maxRedirects {
		return &redirectError{reason: ErrTooManyRedirects}
	}
	if err := c.checkURL(req.URL); err != nil {
		return &redirectError{reason: err}
	}
	to, _ := originOf(req.URL) // checkURL made sure it has one
	if from, ok := originOf(via[0].URL); !ok || to != from {
		return &redirectError{reason: ErrHostNotAllowed}
	}
	return nil
}

// once makes one attempt.
func (c *Client) once(ctx context.Context, u *url.URL) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, ErrURL
	}
	req.Header = c.header.Clone()
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, unwrapURLError(err)
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// Drain a little so the connection can be reused; a big error page
		// is not worth reading.
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, &StatusError{Code: resp.StatusCode, RetryAfter: retryAfter(resp.Header)}
	}
	if resp.ContentLength > c.maxBytes {
		return nil, ErrTooLarge
	}
	// One byte past the limit tells "exactly at the limit" from "over it";
	// the count is of decoded bytes, so a compressed bomb is cut as well.
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err != nil {
		return nil, unwrapURLError(err)
	}
	if int64(len(body)) > c.maxBytes {
		return nil, ErrTooLarge
	}
	return &Response{URL: resp.Request.URL, Header: resp.Header, Body: body}, nil
}

// unwrapURLError drops *url.Error, whose message repeats the URL: callers
// may show the message, and the URL can name an internal host.
func unwrapURLError(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err
	}
	return err
}

// retryable reports whether another attempt may succeed: 429 and 5xx, and
// transport errors. The policy refusals (a refused redirect included), the
// size cap, a name that does not resolve, a bad certificate and the
// context's end are final.
//
// Resolution failures are final whatever their kind, temporary ones
// included: the resolver has already made its own attempts, with its own
// timeouts, and asking again a few hundred milliseconds later only
// multiplies the queries. The caller's job, with its longer back-off, is
// where an outage is waited out.
func retryable(err error) bool {
	var status *StatusError
	if errors.As(err, &status) {
		return status.retryable()
	}
	var certErr *tls.CertificateVerificationError
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, ErrResolve), errors.As(err, &dnsErr):
		return false
	case errors.Is(err, ErrForbiddenAddress), errors.Is(err, ErrScheme),
		errors.Is(err, ErrHostNotAllowed), errors.Is(err, ErrTooManyRedirects),
		errors.Is(err, ErrRedirect), errors.Is(err, ErrTooLarge), errors.Is(err, ErrURL),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &certErr):
		return false
	}
	return true
}

// wait sleeps before retry attempt+1 and reports whether to go on: not when
// the context ends first, nor when the wait would outlast its deadline.
func (c *Client) wait(ctx context.Context, attempt int, err error) bool {
	delay := c.retryDelay << min(attempt, 10) // Retries is small; the cap keeps a big one from overflowing
	// Jitter down to half spreads clients that failed together.
	delay = delay/2 + rand.N(delay/2+1)
	var status *StatusError
	if errors.As(err, &status) && status.RetryAfter > delay {
		delay = status.RetryAfter
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < delay {
		return false
	}
	timer := time.NewTimer(delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// retryAfter reads Retry-After in its seconds form; the date form is rare
// from the providers and ignored.
func retryAfter(h http.Header) time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || s <= 0 {
		return 0
	}
	return time.Duration(s) * time.Second
}

// ParseAllow reads a comma-separated list of address ranges for
// Options.Allow, as a configuration key holds it ("127.0.0.1/32,
// 10.1.0.0/16"); blanks are skipped, and an empty list allows nothing
// beyond the rules.
func ParseAllow(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, r := range strings.Split(s, ",") {
		if r = strings.TrimSpace(r); r == "" {
			continue
		}
		p, err := netip.ParsePrefix(r)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address range such as 127.0.0.1/32", r)
		}
		out = append(out, p)
	}
	return out, nil
}
