package places

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"cairn.dev/cairn/modules/route/text"
)

// DefaultNominatimURL is the public OpenStreetMap instance. A self-hoster
// with real traffic should point NominatimConfig.BaseURL at an instance of
// their own: the public one is a donated service with a strict policy.
const DefaultNominatimURL = "https://nominatim.openstreetmap.org"

// DefaultUserAgent identifies the application, as the Nominatim usage policy
// requires. Operators should set one naming their instance and a contact.
const DefaultUserAgent = "Cairn trip planner (self-hosted)"

// Bounds on one upstream call. A geocoding answer is a few kilobytes; the
// cap only stops a misbehaving server from filling memory.
const (
	nominatimTimeout  = 10 * time.Second
	nominatimMaxBytes = 1 << 20
)

// NominatimConfig configures a Nominatim. The zero value uses the public
// instance under the usage policy.
type NominatimConfig struct {
	// BaseURL is the instance, without /search; empty means
	// DefaultNominatimURL. Tests point it at a local server. It is the
	// operator's setting, never the user's, so it is requested as given.
	BaseURL string
	// UserAgent is sent with every request; empty means DefaultUserAgent.
	UserAgent string
	// Email, when set, is sent as the email parameter the policy asks of
	// heavier users, so the operators of the instance can reach ours.
	Email string
	// Client sends the requests; nil means one with a 10 s timeout. No
	// retries: a retry is another request against the policy's budget.
	Client *http.Client
	// Cache keeps answers; nil means a MemoryCache of DefaultCacheEntries.
	Cache Cache
	// CacheTTL is how long an answer is reused; 0 means DefaultCacheTTL.
	CacheTTL time.Duration
	// Throttle spaces requests; nil means the one shared by the whole
	// process, one request per second.
	Throttle *Throttle
}

// Nominatim is a Searcher backed by a Nominatim instance (OpenStreetMap
// data, ODbL: show NominatimAttribution with its results). Every answer is
// cached for CacheTTL, and every request waits its turn at the throttle, so
// a busy agent loop queues rather than exceeding the usage policy. It is
// safe for concurrent use.
type Nominatim struct {
	search    *url.URL
	userAgent string
	email     string
	client    *http.Client
	cache     Cache
	ttl       time.Duration
	throttle  *Throttle
}

var _ Searcher = (*Nominatim)(nil)

// NewNominatim builds a Nominatim; it fails only on a malformed BaseURL.
func NewNominatim(cfg NominatimConfig) (*Nominatim, error) {
	base := cfg.BaseURL
	if base == "" {
		base = DefaultNominatimURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("places: nominatim base URL must be an absolute http(s) URL")
	}
	u = u.JoinPath("search")
	n := &Nominatim{
		search:    u,
		userAgent: cmp.Or(cfg.UserAgent, DefaultUserAgent),
		email:     cfg.Email,
		client:    cfg.Client,
		cache:     cfg.Cache,
		ttl:       cfg.CacheTTL,
		throttle:  cfg.Throttle,
	}
	if n.client == nil {
		n.client = &http.Client{Timeout: nominatimTimeout}
	}
	if n.cache == nil {
		n.cache = NewMemoryCache(0, nil)
	}
	if n.ttl <= 0 {
		n.ttl = DefaultCacheTTL
	}
	if n.throttle == nil {
		n.throttle = nominatimThrottle
	}
	return n, nil
}

// UpstreamError reports that the geocoding provider failed or answered
// something unusable; the caller answers 502. Its message is fixed text: it
// never carries the query, the URL or the provider's body.
type UpstreamError struct {
	// Status is the provider's HTTP status, 0 when none came back.
	Status int
	// Err is the cause, for logs; it never names the query either.
	Err error
}

// Error is fixed text and the status, safe to log and to show.
func (e *UpstreamError) Error() string {
	if e.Status != 0 {
		return "places: geocoding provider answered " + strconv.Itoa(e.Status)
	}
	return "places: geocoding provider failed"
}

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *UpstreamError) Unwrap() error { return e.Err }

// Search implements Searcher. The provider is always asked for MaxLimit
// places and the answer cut to limit, so one cached answer serves every
// limit.
func (n *Nominatim) Search(ctx context.Context, q string, limit int) ([]Place, error) {
	if err := checkQuery(q); err != nil {
		return nil, err
	}
	// Spaces are collapsed so that "Lyon " and " lyon" share a cache entry
	// and the provider sees a clean query; case is only dropped from the key.
	q = strings.Join(strings.Fields(q), " ")
	if Fold(q) == "" {
		return nil, ErrEmptyQuery
	}
	limit = ClampLimit(limit)
	key := "places:nominatim:" + strings.ToLower(q)

	if got, ok := n.cache.Get(ctx, key); ok {
		return got[:min(limit, len(got))], nil
	}
	if err := n.throttle.Wait(ctx); err != nil {
		return nil, err
	}
	// Another caller may have asked the same while this one waited.
	if got, ok := n.cache.Get(ctx, key); ok {
		return got[:min(limit, len(got))], nil
	}
	got, err := n.fetch(ctx, q)
	if err != nil {
		return nil, err
	}
	n.cache.Set(ctx, key, got, n.ttl)
	return got[:min(limit, len(got))], nil
}

func (n *Nominatim) fetch(ctx context.Context, q string) ([]Place, error) {
	v := url.Values{}
	v.Set("q", q)
	v.Set("limit", strconv.Itoa(MaxLimit))
	var raw []nominatimResult
	if err := n.getJSON(ctx, *n.search, v, &raw); err != nil {
		return nil, err
	}
	out := make([]Place, 0, min(len(raw), MaxLimit))
	for _, r := range raw {
		p, ok := r.place()
		if !ok {
			continue
		}
		out = append(out, p)
		if len(out) == MaxLimit {
			break
		}
	}
	return out, nil
}

// getJSON asks Nominatim at u with the query v (format and address details
// added) and decodes its answer into into, within nominatimMaxBytes. A
// caller who gave up gets its context's error, never an UpstreamError: that
// is not the provider's fault.
func (n *Nominatim) getJSON(ctx context.Context, u url.URL, v url.Values, into any) error {
	v.Set("format", "jsonv2")
	v.Set("addressdetails", "1") // for the country code and the place's rank
	if n.email != "" {
		v.Set("email", n.email)
	}
	u.RawQuery = v.Encode()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return &UpstreamError{Err: errors.New("building the request failed")}
	}
	req.Header.Set("User-Agent", n.userAgent)
	req.Header.Set("Accept", "application/json")

	resp, err := n.client.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return &UpstreamError{Err: withoutURL(err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		// Drain a little so the connection can be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return &UpstreamError{Status: resp.StatusCode}
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, nominatimMaxBytes)).Decode(into); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return &UpstreamError{Status: resp.StatusCode, Err: errors.New("malformed answer")}
	}
	return nil
}

// withoutURL drops the request URL that net/http puts in its errors: it
// holds the query, which must not reach a log line or a message.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

// nominatimResult is the part of a format=jsonv2 result that Place needs.
type nominatimResult struct {
	Lat         string `json:"lat"`
	Lon         string `json:"lon"`
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	Type        string `json:"type"`
	AddressType string `json:"addresstype"`
	Address     struct {
		CountryCode string `json:"country_code"`
	} `json:"address"`
}

// place converts one result, or reports it unusable (no coordinates, or
// no name once cleaned). This is where Nominatim's text enters: the name
// and display name are cleaned and cut by the rule of package text, to
// text.MaxName and text.MaxAddress, and a country code that is not two
// letters is dropped.
func (r nominatimResult) place() (Place, bool) {
	lat, err1 := strconv.ParseFloat(r.Lat, 64)
	lon, err2 := strconv.ParseFloat(r.Lon, 64)
	if err1 != nil || err2 != nil || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return Place{}, false
	}
	name := text.Clean(r.Name, text.MaxName)
	if name == "" {
		first, _, _ := strings.Cut(r.DisplayName, ",")
		name = text.Clean(first, text.MaxName)
	}
	if name == "" {
		return Place{}, false
	}
	return Place{
		Name:        name,
		DisplayName: cmp.Or(text.Clean(r.DisplayName, text.MaxAddress), name),
		Lat:         lat,
		Lon:         lon,
		Type:        nominatimType(r.AddressType, r.Type),
		Country:     countryCode(r.Address.CountryCode),
	}, true
}

// countryCode is code in upper case when it is two ASCII letters, as an
// ISO 3166-1 alpha-2 code is, and empty otherwise.
func countryCode(code string) string {
	if len(code) != 2 {
		return ""
	}
	code = strings.ToUpper(code)
	for i := range len(code) {
		if code[i] < 'A' || code[i] > 'Z' {
			return ""
		}
	}
	return code
}

// nominatimType maps OpenStreetMap's place vocabulary onto the Type
// constants: addresstype says what the object is as an address ("city" for
// an administrative boundary of a city), type is its raw tag.
func nominatimType(addressType, osmType string) string {
	for _, t := range []string{addressType, osmType} {
		switch t {
		case TypeCity, TypeTown, TypeVillage:
			return t
		case "hamlet", "isolated_dwelling":
			return TypeVillage
		}
	}
	return TypePlace
}
