// Package source fetches a route from the URL of a third-party provider
// (pipeline.md §1.2): Komoot tours and collections, Strava routes and
// RideWithGPS routes.
//
// The caller's URL is only ever matched, never requested: an anchored
// pattern recognises the provider and captures the numeric id, and the id
// alone goes into a fixed path on the provider's configured base URL. Each
// provider has its own outbound.Client, locked to the origin (scheme, host and
// port) of its base URL, so the SSRF defences of package fetch (address
// policy at connect time, https, two redirects within the origin, 10 s,
// 30 MiB, retries) apply to every request.
package source

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"cairn.dev/cairn/modules/route/fetch"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/outbound"
)

// Source types, as stored on the trip and published in route_parsed.
const (
	TypeKomootTour       = "komoot_tour"
	TypeKomootCollection = "komoot_collection"
	TypeStravaRoute      = "strava_route"
	TypeRideWithGPS      = "ride_with_gps"
)

// Route is what a source yields.
type Route struct {
	// Title is the provider's name for the route (the collection's name for
	// a collection), cleaned and cut to text.MaxTitle runes by the rule of
	// package text as it is read; empty when it has none.
	Title string
	// SourceType is one of the Type constants.
	SourceType string
	// Tracks holds one track per tour for a collection (each becomes a
	// stage), a single one otherwise. No track is empty.
	Tracks [][]geo.Point
}

// Ref names a route at its provider: what Recognise reads from a URL and
// what the cache is keyed by.
type Ref struct {
	SourceType string
	ID         string // decimal digits only
}

// patterns recognise source URLs. Each is anchored at both ends and
// captures the id; after it come at most a trailing slash, a query and a
// fragment (share links carry "?ref=..."), never more path. Host names are
// matched literally, so "www.komoot.com.evil.test" or a userinfo trick
// ("https://www.komoot.com@evil.test/...") cannot match.
var patterns = []struct {
	re         *regexp.Regexp
	sourceType string
}{
	{regexp.MustCompile(`^https://(?:www\.)?komoot\.com/(?:[a-z]{2}-[a-z]{2}/)?tour/(\d{1,19})/?(?:[?#].*)?$`), TypeKomootTour},
	{regexp.MustCompile(`^https://(?:www\.)?komoot\.com/(?:[a-z]{2}-[a-z]{2}/)?collection/(\d{1,19})/?(?:[?#].*)?$`), TypeKomootCollection},
	{regexp.MustCompile(`^https://(?:www\.)?strava\.com/routes/(\d{1,19})/?(?:[?#].*)?$`), TypeStravaRoute},
	{regexp.MustCompile(`^https://(?:www\.)?ridewithgps\.com/routes/(\d{1,19})/?(?:[?#].*)?$`), TypeRideWithGPS},
}

// MaxURLBytes bounds a source URL, the sourceUrl limit of the trips API.
const MaxURLBytes = 2048

// Recognise reads the provider and id from a source URL, or returns an
// *UnsupportedError (errors.Is(err, ErrUnsupported) holds) naming the
// first rule it breaks. Leading and trailing white space is ignored
// (pasted URLs). A URL is accepted only by the patterns; the reason of a
// refusal is read afterwards, for logs and tests, and decides nothing.
func Recognise(rawURL string) (Ref, error) {
	s := strings.TrimSpace(rawURL)
	if len(s) > MaxURLBytes {
		return Ref{}, &UnsupportedError{Reason: ReasonTooLong}
	}
	// Refused before the patterns, which allow anything after the id: a
	// control character or a backslash there has no use in a share link,
	// and the URL is stored as the trip's source.
	if !printable(s) {
		return Ref{}, &UnsupportedError{Reason: ReasonCharacters}
	}
	for _, p := range patterns {
		if m := p.re.FindStringSubmatch(s); m != nil {
			return Ref{SourceType: p.sourceType, ID: m[1]}, nil
		}
	}
	return Ref{}, &UnsupportedError{Reason: diagnose(s)}
}

// Production base URLs.
const (
	DefaultKomootURL      = "https://www.komoot.com"
	DefaultStravaURL      = "https://www.strava.com"
	DefaultRideWithGPSURL = "https://ridewithgps.com"
)

// DefaultCacheTTL is how long a fetched route is reused (pipeline.md §1.2).
const DefaultCacheTTL = 24 * time.Hour

// DefaultCollectionConcurrency bounds the tours of a collection fetched at
// once: enough to keep a 30-tour collection well inside its budget without
// looking like a crawler to the provider.
const DefaultCollectionConcurrency = 4

// MaxCollectionTours bounds the tours a collection may list. A multi-week
// trip has a few dozen; more is refused rather than fanned out.
const MaxCollectionTours = 100

// Options configures a Fetcher. The zero value targets the real providers
// with the fetch package's production policy and no cache.
type Options struct {
	// Base URLs per provider; empty means the Default ones. Tests point
	// them at local servers. Only the scheme, host and path prefix are used.
	KomootURL, StravaURL, RideWithGPSURL string
	// Fetch is the policy for every provider's client. Its Origin and
	// Header are set per provider; the rest (AllowHTTP and Allow in tests, delays)
	// is used as given.
	Fetch outbound.Options
	// Cache keeps routes per Ref; nil means none.
	Cache Cache
	// CacheTTL is how long a route stays cached; 0 means DefaultCacheTTL.
	CacheTTL time.Duration
	// CollectionConcurrency bounds concurrent tour fetches of a collection;
	// 0 means DefaultCollectionConcurrency.
	CollectionConcurrency int
}

// Fetcher fetches routes from source URLs. It is safe for concurrent use.
type Fetcher struct {
	komoot, strava, rwgps provider
	cache                 Cache
	cacheTTL              time.Duration
	concurrency           int
}

// provider is one source's base URL and its origin-locked client.
type provider struct {
	base   *url.URL
	client *outbound.Client
}

// New builds a Fetcher; it fails only on a malformed base URL.
func New(opts Options) (*Fetcher, error) {
	f := &Fetcher{cache: opts.Cache, cacheTTL: opts.CacheTTL, concurrency: opts.CollectionConcurrency}
	if f.cacheTTL <= 0 {
		f.cacheTTL = DefaultCacheTTL
	}
	if f.concurrency <= 0 {
		f.concurrency = DefaultCollectionConcurrency
	}
	var err error
	if f.komoot, err = newProvider(opts.KomootURL, DefaultKomootURL, "text/html", opts.Fetch); err != nil {
		return nil, err
	}
	if f.strava, err = newProvider(opts.StravaURL, DefaultStravaURL, "application/gpx+xml, application/xml;q=0.9", opts.Fetch); err != nil {
		return nil, err
	}
	if f.rwgps, err = newProvider(opts.RideWithGPSURL, DefaultRideWithGPSURL, "application/json", opts.Fetch); err != nil {
		return nil, err
	}
	return f, nil
}

func newProvider(raw, def, accept string, opts outbound.Options) (provider, error) {
	if raw == "" {
		raw = def
	}
	base, err := url.Parse(raw)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" ||
		base.User != nil || base.RawQuery != "" || base.Fragment != "" {
		return provider{}, fmt.Errorf("source: base URL %q must be http(s)://host[/path]", raw)
	}
	// The lock is the base's whole origin, port included: a redirect to
	// another port of the provider's host is another service.
	opts.Origin = base.Scheme + "://" + base.Host
	opts.Header = http.Header{"Accept": {accept}}
	return provider{base: base, client: fetch.New(opts)}, nil
}

// get fetches the fixed path elems on the provider. Elements are joined,
// not formatted into a string, and each is a constant or a digits-only id,
// so the result cannot leave the base URL.
func (p provider) get(ctx context.Context, elems ...string) ([]byte, error) {
	u := p.base.JoinPath(elems...)
	resp, err := p.client.Get(ctx, u.String())
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// Fetch recognises rawURL and fetches its route. Errors are *Error:
// ErrFetchFailed (ErrUnsupported among its causes) or ErrEmptyRoute.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Route, error) {
	ref, err := Recognise(rawURL)
	if err != nil {
		return Route{}, failed(err)
	}
	return f.FetchRef(ctx, ref)
}

// FetchRef fetches the route ref names, from the cache when it holds it.
func (f *Fetcher) FetchRef(ctx context.Context, ref Ref) (Route, error) {
	if !digits(ref.ID) {
		return Route{}, failed(ErrUnsupported)
	}
	key := ref.SourceType + ":" + ref.ID
	if f.cache != nil {
		if r, ok := f.cache.Get(ctx, key); ok {
			return r, nil
		}
	}
	var (
		r   Route
		err error
	)
	switch ref.SourceType {
	case TypeKomootTour:
		r, err = f.komootTour(ctx, ref.ID)
	case TypeKomootCollection:
		r, err = f.komootCollection(ctx, ref.ID)
	case TypeStravaRoute:
		r, err = f.stravaRoute(ctx, ref.ID)
	case TypeRideWithGPS:
		r, err = f.rideWithGPSRoute(ctx, ref.ID)
	default:
		err = ErrUnsupported
	}
	if err != nil {
		return Route{}, failed(err)
	}
	r.SourceType = ref.SourceType
	if f.cache != nil {
		f.cache.Set(ctx, key, r, f.cacheTTL)
	}
	return r, nil
}

// digits reports whether s is a non-empty run of ASCII digits, the only
// shape an id may have before it goes into a path.
func digits(s string) bool {
	if s == "" || len(s) > 19 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// validPoint reports whether lat and lon are finite WGS-84 coordinates;
// NaN fails both comparisons.
func validPoint(lat, lon float64) bool {
	return lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180
}
