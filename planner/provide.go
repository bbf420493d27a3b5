package planner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/route/places"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/route/routing"
	"cairn.dev/cairn/modules/route/source"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/outbound"
)

// routeSource adapts the route sources to the trips pipeline, telling a
// failure worth retrying (a provider down) from one that is not (an
// unsupported address, a removed route, an empty one).
type routeSource struct{ f *source.Fetcher }

func (s routeSource) Fetch(ctx context.Context, url string) (trips.Imported, error) {
	r, err := s.f.Fetch(ctx, url)
	if err != nil {
		var se *source.Error
		if errors.As(err, &se) {
			if failure := permanent(se); failure != "" {
				return trips.Imported{}, &trips.Permanent{Code: se.Code, Failure: failure, Err: err}
			}
		}
		return trips.Imported{}, err
	}
	return trips.Imported{Title: r.Title, SourceType: r.SourceType, Tracks: r.Tracks}, nil
}

// permanent names the failure of a fetch that retrying cannot fix, as
// get_trip gives it; "" for one worth retrying (the provider down).
func permanent(se *source.Error) string {
	if se.Code == source.CodeEmptyRoute {
		return trips.FailureEmpty
	}
	var st *outbound.StatusError
	switch {
	case errors.As(se.Err, &st):
		if st.Code < 500 && st.Code != http.StatusTooManyRequests {
			return trips.FailureNotFound // 404, 403 (private), 410: the provider has no such route for us
		}
		return ""
	case errors.Is(se.Err, source.ErrUnsupported):
		return trips.FailureUnsupported
	case errors.Is(se.Err, outbound.ErrForbiddenAddress) || errors.Is(se.Err, outbound.ErrScheme) ||
		errors.Is(se.Err, outbound.ErrRedirect) || errors.Is(se.Err, outbound.ErrHostNotAllowed):
		return trips.FailureRefused
	}
	return ""
}

func provideSource(cfg Settings) (trips.Source, error) {
	opts := source.Options{
		Fetch: outbound.Options{AllowHTTP: cfg.SourceAllowHTTP},
		Cache: source.NewMemoryCache(1000, nil),
	}
	var err error
	if opts.Fetch.Allow, err = outbound.ParseAllow(cfg.SourceAllow); err != nil {
		return nil, fmt.Errorf("source_allow: %w", err)
	}
	for _, kv := range splitList(cfg.SourceBaseURLs) {
		name, u, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
			return nil, fmt.Errorf("source_base_urls: %q must read provider=URL", kv)
		case name == "komoot":
			opts.KomootURL = u
		case name == "strava":
			opts.StravaURL = u
		case name == "ridewithgps":
			opts.RideWithGPSURL = u
		default:
			return nil, fmt.Errorf("source_base_urls: unknown provider %q (komoot, strava, ridewithgps)", name)
		}
	}
	f, err := source.New(opts)
	if err != nil {
		return nil, fmt.Errorf("source_base_urls: %w", err)
	}
	return routeSource{f: f}, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// providePlaces finds accommodation candidates in the local points-of-interest
// store, filled by `cairn pois import`, or through Overpass when configured.
func providePlaces(db *bun.DB, cfg Settings) poi.Provider {
	if cfg.OverpassURL != "" {
		return poi.NewOverpass(cfg.OverpassURL)
	}
	return poi.NewStore(db)
}

// provideRouter routes detours through a self-hosted BRouter when one is
// configured, along great circles (approximate) otherwise.
func provideRouter(cfg Settings) (routing.Router, error) {
	return routing.New(routing.Config{BRouter: routing.BRouterOptions{BaseURL: cfg.RouterURL}})
}

// provideSearcher answers search_places from the embedded gazetteer, or from
// a Nominatim when one is configured.
func provideSearcher(cfg Settings) (places.Searcher, error) {
	if cfg.NominatimURL == "" {
		return places.Embedded(), nil
	}
	return places.NewNominatim(places.NominatimConfig{BaseURL: cfg.NominatimURL})
}
