// Package upstream is the HTTP client of the outside providers an
// operator configures (a weather forecast, an events feed): retries with
// back-off on 429, 5xx and transport errors (github.com/hashicorp/
// go-retryablehttp, which also honours Retry-After), a time budget per
// call and a cap on what is read. The address is the operator's setting,
// never a user's, so it is requested as given.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Options shape a Client; the zero value is the default policy.
type Options struct {
	Timeout  time.Duration // the whole call, retries included; default 10 s
	Retries  int           // after the first try; default 2, negative for none
	MinWait  time.Duration // the first back-off; default 250 ms
	MaxBytes int64         // default 4 MiB
	// UserAgent names the application to the provider.
	UserAgent string
}

// Client calls one provider.
type Client struct {
	rc       *retryablehttp.Client
	timeout  time.Duration
	maxBytes int64
	agent    string
}

// New returns a client under o.
func New(o Options) *Client {
	rc := retryablehttp.NewClient()
	rc.Logger = nil
	rc.RetryMax = 2
	if o.Retries > 0 {
		rc.RetryMax = o.Retries
	} else if o.Retries < 0 {
		rc.RetryMax = 0
	}
	rc.RetryWaitMin = 250 * time.Millisecond
	if o.MinWait > 0 {
		rc.RetryWaitMin = o.MinWait
	}
	rc.RetryWaitMax = 8 * rc.RetryWaitMin
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	c := &Client{rc: rc, timeout: 10 * time.Second, maxBytes: 4 << 20, agent: o.UserAgent}
	if o.Timeout > 0 {
		c.timeout = o.Timeout
	}
	if o.MaxBytes > 0 {
		c.maxBytes = o.MaxBytes
	}
	if c.agent == "" {
		c.agent = "Cairn trip planner"
	}
	return c
}

// ErrUpstream is matched (errors.Is) by every *Error.
var ErrUpstream = errors.New("upstream: the provider failed")

// Error is a failed call: no answer, or a status outside 2xx after the
// retries.
type Error struct {
	Status int // 0 when no answer came
	Err    error
}

// Error says the status only: never the address or the provider's words.
func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%v (status %d)", ErrUpstream, e.Status)
	}
	return ErrUpstream.Error()
}

// Unwrap makes errors.Is hold for ErrUpstream and the cause.
func (e *Error) Unwrap() []error { return []error{ErrUpstream, e.Err} }

// Get fetches url, retrying as Options say, and reads the body up to the
// cap. A 4xx other than 429 is not retried and comes back as an *Error
// with its status, so that a caller can tell "no such forecast" from "down".
func (c *Client) Get(ctx context.Context, url, accept string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, &Error{Err: err}
	}
	req.Header.Set("User-Agent", c.agent)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := c.rc.Do(req)
	if err != nil {
		return nil, &Error{Err: err}
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, &Error{Status: res.StatusCode, Err: errors.New(res.Status)}
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, c.maxBytes+1))
	if err != nil {
		return nil, &Error{Status: res.StatusCode, Err: err}
	}
	if int64(len(b)) > c.maxBytes {
		return nil, &Error{Status: res.StatusCode, Err: errors.New("answer too large")}
	}
	return b, nil
}
