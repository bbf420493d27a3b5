package poi

import (
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

// DefaultOverpassEndpoint is the public Overpass instance. Its usage policy
// asks for moderate use: a deployment that relies on Overpass should run
// its own and set Overpass.Endpoint.
const DefaultOverpassEndpoint = "https://overpass-api.de/api/interpreter"

// ErrUpstream is matched (errors.Is) by every *UpstreamError.
var ErrUpstream = errors.New("poi: overpass failed")

// UpstreamError is a failed Overpass call: no answer, a status outside 2xx,
// an answer that does not parse or passes Overpass.MaxBytes, or a runtime
// error reported in the answer (Overpass then answers 200 with a partial
// result, which is refused rather than trusted).
type UpstreamError struct {
	StatusCode int    // 0 when no response came
	Reason     string // fixed text: "no answer", "unexpected status", "malformed answer", …
	Remark     string // Overpass's own remark, when it gave one, cut to text.MaxMessage; for logs
	Err        error  // the cause, for logs; may name the endpoint
}

// Error gives the reason and status only: never the endpoint, the query or
// the cause's text, so it is safe to show.
func (e *UpstreamError) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("%s: %s (status %d)", ErrUpstream, e.Reason, e.StatusCode)
	}
	return fmt.Sprintf("%s: %s", ErrUpstream, e.Reason)
}

// Unwrap makes errors.Is hold for ErrUpstream and for the cause
// (context.DeadlineExceeded, say).
func (e *UpstreamError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrUpstream}
	}
	return []error{ErrUpstream, e.Err}
}

// Overpass is the optional Provider that asks an Overpass API for the
// accommodations around a point instead of reading the local table. It
// ranks them exactly as *Store does; a way stands at the centroid of its
// nodes, as on import. The zero value is not ready: use NewOverpass.
type Overpass struct {
	// Endpoint is the interpreter URL, e.g. DefaultOverpassEndpoint.
	Endpoint string
	// Client sends the request; NewOverpass sets one with a 40 s timeout.
	Client *http.Client
	// Timeout is the server-side budget of the query ([timeout:]); default
	// 25 s.
	Timeout time.Duration
	// MaxBytes bounds the answer read, and is sent as [maxsize:]; default
	// 8 MiB.
	MaxBytes int64
	// MaxElements bounds the elements the query outputs; default 500.
	MaxElements int
	// UserAgent identifies the application, as the Overpass policy asks.
	UserAgent string
}

var _ Provider = (*Overpass)(nil)

// NewOverpass returns a client of the interpreter at endpoint with the
// defaults.
func NewOverpass(endpoint string) *Overpass {
	return &Overpass{Endpoint: endpoint, Client: &http.Client{Timeout: 40 * time.Second},
		UserAgent: "cairn (bikepacking trip planner)"}
}

// Candidates asks Overpass for the accommodation nodes and ways within the
// radius; see Provider. Failures are *UpstreamError.
func (o *Overpass) Candidates(ctx context.Context, near geo.Point, radiusKm float64, types []string, date *time.Time) ([]Accommodation, error) {
	q, err := newQuery(near, radiusKm, types, date)
	if err != nil {
		return nil, err
	}
	els, err := o.fetch(ctx, o.Query(q.near, q.radiusKm, q.types))
	if err != nil {
		return nil, err
	}
	pois := make([]POI, 0, len(els))
	now := time.Now().UTC()
	for _, el := range els {
		if p, ok := el.poi(now); ok {
			pois = append(pois, p)
		}
	}
	return q.choose(pois), nil
}

func (o *Overpass) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 25 * time.Second
}

func (o *Overpass) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return 8 << 20
}

// Query is the Overpass QL sent for a call: nodes and ways tagged with one
// of types within radiusKm of near, with their tags and geometry, at most
// MaxElements of them. types must be validated accommodation types: they
// are written into the query as they are.
func (o *Overpass) Query(near geo.Point, radiusKm float64, types []string) string {
	limit := o.MaxElements
	if limit <= 0 {
		limit = 500
	}
	around := fmt.Sprintf("(around:%d,%s,%s)", int(math.Ceil(radiusKm*1000)),
		strconv.FormatFloat(near.Lat, 'f', 6, 64), strconv.FormatFloat(near.Lon, 'f', 6, 64))
	filter := `["tourism"~"^(` + strings.Join(types, "|") + `)$"]`
	return fmt.Sprintf("[out:json][timeout:%d][maxsize:%d];\n(\n  node%s%s;\n  way%s%s;\n);\nout body geom %d;\n",
		int(o.timeout().Seconds()), o.maxBytes(), filter, around, filter, around, limit)
}

// overpassAnswer is the part of the JSON answer read.
type overpassAnswer struct {
	Remark   string            `json:"remark"`
	Elements []overpassElement `json:"elements"`
}

type overpassElement struct {
	Type     string            `json:"type"`
	ID       int64             `json:"id"`
	Lat      *float64          `json:"lat"`
	Lon      *float64          `json:"lon"`
	Geometry []*overpassLatLon `json:"geometry"` // null for a node Overpass could not place
	Nodes    []int64           `json:"nodes"`
	Tags     map[string]string `json:"tags"`
}

type overpassLatLon struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

func (o *Overpass) fetch(ctx context.Context, query string) ([]overpassElement, error) {
	form := url.Values{"data": {query}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, &UpstreamError{Reason: "bad endpoint", Err: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if o.UserAgent != "" {
		req.Header.Set("User-Agent", o.UserAgent)
	}
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, &UpstreamError{Reason: "no answer", Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, &UpstreamError{StatusCode: resp.StatusCode, Reason: "unexpected status"}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, o.maxBytes()+1))
	if err != nil {
		return nil, &UpstreamError{StatusCode: resp.StatusCode, Reason: "answer cut short", Err: err}
	}
	if int64(len(body)) > o.maxBytes() {
		return nil, &UpstreamError{StatusCode: resp.StatusCode, Reason: "answer larger than the limit"}
	}
	var ans overpassAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, &UpstreamError{StatusCode: resp.StatusCode, Reason: "malformed answer", Err: err}
	}
	if strings.Contains(strings.ToLower(ans.Remark), "error") {
		return nil, &UpstreamError{StatusCode: resp.StatusCode, Reason: "runtime error", Remark: text.Clean(ans.Remark, text.MaxMessage)}
	}
	return ans.Elements, nil
}

// poi converts an element; ok is false for anything but a placed
// accommodation node or way.
func (el overpassElement) poi(now time.Time) (POI, bool) {
	name, category, tags, ok := fromOSM(func(k string) string { return el.Tags[k] })
	if !ok {
		return POI{}, false
	}
	p := POI{Source: SourceOSM, OSMID: el.ID, Name: name, Category: category, Tags: tags, ImportedAt: now}
	switch el.Type {
	case OSMNode:
		if el.Lat == nil || el.Lon == nil {
			return POI{}, false
		}
		p.Lat, p.Lon = *el.Lat, *el.Lon
	case OSMWay:
		lat, lon, ok := geometryCentroid(el.Nodes, el.Geometry)
		if !ok {
			return POI{}, false
		}
		p.Lat, p.Lon = lat, lon
	default:
		return POI{}, false
	}
	p.OSMType = el.Type
	p.ID = OSMKey(el.Type, el.ID)
	return p, true
}

// geometryCentroid is the centroid of a way's placed nodes, its closing node
// counted once, as the importer computes it.
func geometryCentroid(ids []int64, geom []*overpassLatLon) (lat, lon float64, ok bool) {
	n := len(geom)
	if n > 1 && len(ids) == n && ids[0] == ids[n-1] {
		n--
	}
	found := 0
	for _, g := range geom[:n] {
		if g == nil {
			continue
		}
		lat += g.Lat
		lon += g.Lon
		found++
	}
	if found == 0 {
		return 0, 0, false
	}
	return lat / float64(found), lon / float64(found), true
}
