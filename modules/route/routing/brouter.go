package routing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/text"
)

// Defaults for the zero BRouterOptions.
const (
	// DefaultProfile is BRouter's touring-bike profile, shipped with every
	// server: it prefers quiet roads and cycleways and accepts good tracks,
	// the usual bikepacking mix.
	DefaultProfile = "trekking"
	// DefaultTimeout bounds one routing request, body included. A detour is
	// a few tens of kilometres, which BRouter answers in well under a second;
	// the margin covers a cold server loading its segment files.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxBytes caps the response read: a 300 km answer with its
	// per-segment messages is a few MiB.
	DefaultMaxBytes = 32 << 20
)

// ErrBaseURL refuses a BRouterOptions.BaseURL that is not an absolute http
// or https URL.
var ErrBaseURL = errors.New("routing: BRouter base URL must be an absolute http(s) URL")

// ErrUpstream is what every failure of the routing engine matches with
// errors.Is: no answer, an answer other than 200, or one that is not a
// route. The error itself is an *UpstreamError.
var ErrUpstream = errors.New("routing: routing engine failed")

// errTooLarge is the cause of an UpstreamError for an answer over MaxBytes.
var errTooLarge = errors.New("answer larger than the limit")

// UpstreamError is a failure of the routing engine. Callers map it to a 502
// with a fixed detail; its message, which may repeat the engine's words, is
// for logs.
type UpstreamError struct {
	// Status is the engine's HTTP status, 0 when no answer arrived.
	Status int
	// Message is the engine's own explanation when it refused (BRouter
	// answers 400 with a line of text such as "position not mapped in
	// existing datafile"), cleaned and cut to text.MaxMessage runes; empty
	// otherwise.
	Message string
	// Err is the cause: a transport error (context.DeadlineExceeded on
	// timeout), or why the answer could not be read; nil when the status
	// and Message say it all.
	Err error
}

// Error describes the failure for logs.
func (e *UpstreamError) Error() string {
	var b strings.Builder
	b.WriteString("routing: brouter")
	if e.Status != 0 {
		fmt.Fprintf(&b, ": status %d", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap makes errors.Is hold for ErrUpstream and for the cause, such as
// context.DeadlineExceeded.
func (e *UpstreamError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrUpstream}
	}
	return []error{ErrUpstream, e.Err}
}

// BRouterOptions configures a BRouter client.
type BRouterOptions struct {
	// BaseURL is where the BRouter server listens, such as
	// http://brouter:17777; the /brouter endpoint is appended to its path,
	// so a server behind a path prefix works too. Required.
	BaseURL string
	// Profile names the server's routing profile; empty means
	// DefaultProfile.
	Profile string
	// Timeout bounds each Route call, body included; 0 or less means
	// DefaultTimeout. The caller's context can only shorten it.
	Timeout time.Duration
	// MaxBytes caps the answer read; 0 or less means DefaultMaxBytes.
	MaxBytes int64
	// Client sends the requests; nil means http.DefaultClient. Timeout
	// applies whatever the client's own.
	Client *http.Client
}

// BRouter is a Router backed by a self-hosted BRouter server
// (github.com/abrensch/brouter). BRouter was chosen over OSRM and Valhalla
// because it is built for bicycles: its profiles weigh surface, traffic and
// gradient, its answer carries an elevation for every point with a filtered
// total climb, and its time estimate accounts for the climbs, so one GET
// fills every field of Result. OSRM has no elevation at all; Valhalla has
// it but needs a separate DEM set-up, and answers with an encoded polyline.
//
// Results are never Approximate. It is safe for concurrent use.
type BRouter struct {
	endpoint *url.URL
	profile  string
	timeout  time.Duration
	maxBytes int64
	client   *http.Client
}

var _ Router = (*BRouter)(nil)

// NewBRouter checks o and returns a client; it makes no request. It fails
// with ErrBaseURL.
func NewBRouter(o BRouterOptions) (*BRouter, error) {
	base, err := url.Parse(o.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, ErrBaseURL
	}
	b := &BRouter{
		endpoint: base.JoinPath("brouter"),
		profile:  o.Profile,
		timeout:  o.Timeout,
		maxBytes: o.MaxBytes,
		client:   o.Client,
	}
	b.endpoint.RawQuery, b.endpoint.Fragment = "", ""
	if b.profile == "" {
		b.profile = DefaultProfile
	}
	if b.timeout <= 0 {
		b.timeout = DefaultTimeout
	}
	if b.maxBytes <= 0 {
		b.maxBytes = DefaultMaxBytes
	}
	if b.client == nil {
		b.client = http.DefaultClient
	}
	return b, nil
}

// Route asks the server for a route through via, in order. Refused via
// points fail with ErrTooFewPoints or ErrInvalidPoint before any request;
// every failure after that is an *UpstreamError.
func (b *BRouter) Route(ctx context.Context, via []geo.Point) (Result, error) {
	if err := checkVia(via); err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.requestURL(via), nil)
	if err != nil {
		return Result{}, &UpstreamError{Err: err}
	}
	req.Header.Set("Accept", "application/geo+json, application/json;q=0.9, text/plain;q=0.5")
	resp, err := b.client.Do(req)
	if err != nil {
		return Result{}, &UpstreamError{Err: err}
	}
	defer resp.Body.Close()

	body, err := io.ReadAll(io.LimitReader(resp.Body, b.maxBytes+1))
	switch {
	case err != nil:
		return Result{}, &UpstreamError{Status: resp.StatusCode, Err: err}
	case int64(len(body)) > b.maxBytes:
		return Result{}, &UpstreamError{Status: resp.StatusCode, Err: errTooLarge}
	case resp.StatusCode != http.StatusOK:
		return Result{}, &UpstreamError{Status: resp.StatusCode, Message: engineMessage(body)}
	}
	res, err := decodeBRouter(body)
	if err != nil {
		return Result{}, &UpstreamError{Status: resp.StatusCode, Err: err}
	}
	return res, nil
}

// requestURL asks for the first (best) route as GeoJSON. BRouter takes
// "lon,lat" pairs separated by "|"; six decimals are 0.1 m.
func (b *BRouter) requestURL(via []geo.Point) string {
	pairs := make([]string, len(via))
	for i, p := range via {
		pairs[i] = strconv.FormatFloat(p.Lon, 'f', 6, 64) + "," + strconv.FormatFloat(p.Lat, 'f', 6, 64)
	}
	u := *b.endpoint
	u.RawQuery = url.Values{
		"lonlats":        {strings.Join(pairs, "|")},
		"profile":        {b.profile},
		"alternativeidx": {"0"},
		"format":         {"geojson"},
	}.Encode()
	return u.String()
}

// engineMessage keeps the first line of an error body, cleaned and cut to
// text.MaxMessage runes by the rule of package text: the engine's
// explanation is one line, anything longer is a stack trace or a proxy's
// error page. The line goes through a text.Builder, so a body of megabytes
// without a line break is not copied.
func engineMessage(body []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(body), []byte("\n"))
	var msg text.Builder
	msg.Reset(text.MaxMessage)
	msg.Write(line)
	return msg.String()
}

// brouterAnswer is the part of BRouter's GeoJSON answer Route reads: one
// Feature whose LineString has [lon, lat, ele] positions and whose
// properties hold the totals, written as JSON strings.
type brouterAnswer struct {
	Features []struct {
		Properties struct {
			TrackLength    textNumber `json:"track-length"`    // metres
			FilteredAscend textNumber `json:"filtered ascend"` // metres, noise filtered out
			TotalTime      textNumber `json:"total-time"`      // seconds
		} `json:"properties"`
		Geometry struct {
			Type        string      `json:"type"`
			Coordinates [][]float64 `json:"coordinates"`
		} `json:"geometry"`
	} `json:"features"`
}

// textNumber reads a number BRouter writes as a string ("7079"), and also
// a plain JSON number, so a server that changes its mind still parses.
type textNumber struct {
	value float64
	set   bool
}

// UnmarshalJSON accepts "123.4", 123.4 and null (left unset).
func (n *textNumber) UnmarshalJSON(data []byte) error {
	s := string(data)
	if s == "null" {
		return nil
	}
	if unquoted, err := strconv.Unquote(s); err == nil {
		s = unquoted
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("not a number: %.20q", s)
	}
	n.value, n.set = v, true
	return nil
}

// decodeBRouter turns an answer into a Result. A missing total falls back
// to what the line itself gives (its length, no climb, DefaultSpeed), as
// old servers omit total-time.
func decodeBRouter(body []byte) (Result, error) {
	var ans brouterAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return Result{}, fmt.Errorf("answer is not BRouter GeoJSON: %w", err)
	}
	if len(ans.Features) == 0 {
		return Result{}, errors.New("answer has no route feature")
	}
	f := ans.Features[0]
	if f.Geometry.Type != "LineString" || len(f.Geometry.Coordinates) < 2 {
		return Result{}, errors.New("answer route is not a line of two points or more")
	}
	coords := make([]geo.Point, len(f.Geometry.Coordinates))
	for i, c := range f.Geometry.Coordinates {
		if len(c) < 2 || !validCoordinate(c[1], c[0]) {
			return Result{}, fmt.Errorf("answer position %d is not a coordinate", i)
		}
		coords[i] = geo.Point{Lon: c[0], Lat: c[1]}
		if len(c) > 2 {
			coords[i].Ele = c[2]
		}
	}

	props := f.Properties
	km := geo.Length(coords) / 1000
	if props.TrackLength.set {
		km = props.TrackLength.value / 1000
	}
	duration := durationAt(km, DefaultSpeed)
	if props.TotalTime.set {
		duration = time.Duration(math.Round(props.TotalTime.value * float64(time.Second)))
	}
	return Result{
		Coordinates:   coords,
		Distance:      km,
		ElevationGain: props.FilteredAscend.value,
		Duration:      duration,
		Approximate:   false,
	}, nil
}
