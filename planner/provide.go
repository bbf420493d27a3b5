package planner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/route/countries"
	"cairn.dev/cairn/modules/route/events"
	"cairn.dev/cairn/modules/route/places"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/route/routing"
	"cairn.dev/cairn/modules/route/source"
	"cairn.dev/cairn/modules/route/upstream"
	"cairn.dev/cairn/modules/route/weather"
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

// provideMapData is the local geographic store the enrichments read
// (cairn pois import fills it), whatever answers the accommodations.
func provideMapData(db *bun.DB) trips.MapData { return poi.NewStore(db) }

// provideForecasts reads forecasts at weather_url; none without it.
func provideForecasts(cfg Settings) (trips.Forecaster, error) {
	if cfg.WeatherURL == "" {
		return nil, nil
	}
	c, err := weather.New(cfg.WeatherURL, weather.Options{})
	if err != nil {
		return nil, fmt.Errorf("weather_url: %w", err)
	}
	return c, nil
}

// provideEvents reads the iCalendar feed at events_url; none without it.
func provideEvents(cfg Settings) (trips.EventFeed, error) {
	if cfg.EventsURL == "" {
		return nil, nil
	}
	f, err := events.New(cfg.EventsURL, upstream.Options{})
	if err != nil {
		return nil, fmt.Errorf("events_url: %w", err)
	}
	return f, nil
}

// provideBorders names countries from the embedded borders.
func provideBorders() trips.Borders { return countries.Embedded() }

// provideNamer names the days' ends from the embedded gazetteer.
func provideNamer() places.Reverser { return places.Embedded() }

// PrintOutsideData says which outside data the trips read, and what the
// ones not configured mean: the computations that need them say "not
// configured" on every trip, never an empty list.
func PrintOutsideData(w io.Writer, cfg Settings) {
	line := func(name, value, without string) {
		if value == "" {
			fmt.Fprintf(w, "  %-9s not configured: %s\n", name, without)
			return
		}
		fmt.Fprintf(w, "  %-9s %s\n", name, value)
	}
	fmt.Fprintln(w, "Outside data the trips read:")
	line("weather", cfg.WeatherURL, "no forecasts, wind or wet fords (set weather_url, Open-Meteo's format)")
	line("events", cfg.EventsURL, "no events (set events_url, an iCalendar feed)")
	fmt.Fprintln(w, "  map data  the local store (cairn pois import FILE.osm.pbf); without an import every trip says no_map_data")
	fmt.Fprintln(w, "  holidays, countries and place names are built in.")
}
