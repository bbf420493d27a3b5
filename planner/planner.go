// Package planner is the bikepacking trip planner, the framework's first
// product: it names its modules, their configuration keys and migrations,
// and provides what they need (route sources, places, routing, the job
// queue's workers). It is a client of the framework like any other: the
// framework never imports it.
package planner

import (
	"errors"
	"time"

	"go.uber.org/fx"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/door"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/placesearch"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/storage"
)

// Version is the product's version, set at build time.
var Version = "0.1.0"

// Settings are the product's configuration keys (Keys), decoded.
// The door's own keys (sign-in, mail, OAuth) are door.Settings.
type Settings struct {
	DevEmail        string        `koanf:"dev_email"`
	DigestCacheTTL  time.Duration `koanf:"digest_cache_ttl"`
	DigestCacheSize int           `koanf:"digest_cache_size"`
	DigestHeardTTL  time.Duration `koanf:"digest_heard_ttl"`
	SourceAllowHTTP bool          `koanf:"source_allow_http"`
	SourceAllow     string        `koanf:"source_allow"`
	SourceBaseURLs  string        `koanf:"source_base_urls"`
	RouterURL       string        `koanf:"router_url"`
	NominatimURL    string        `koanf:"nominatim_url"`
	OverpassURL     string        `koanf:"overpass_url"`
	WeatherURL      string        `koanf:"weather_url"`
	EventsURL       string        `koanf:"events_url"`
}

// Decode reads the product's settings from a loaded configuration.
func Decode(cfg config.Config) (Settings, error) {
	var s Settings
	if err := cfg.Decode(&s); err != nil {
		return s, err
	}
	if s.DigestCacheTTL < 0 {
		return s, errors.New("digest_cache_ttl: must not be negative")
	}
	if s.DigestHeardTTL < 0 {
		return s, errors.New("digest_heard_ttl: must not be negative")
	}
	if s.DigestCacheSize < 2 {
		return s, errors.New("digest_cache_size: must be at least 2")
	}
	return s, nil
}

var devKeys = []config.Key{
	{Name: "dev_email", Default: "dev@cairn.local", Doc: "email of the development user (dev mode)"},
}

var tripKeys = []config.Key{
	{Name: "digest_cache_ttl", Default: "250ms", Doc: "how long a replica answers a trip's digest (get_trip) from memory before checking the trip's revision again: a write made on another replica is read within it, one made on this replica at once; 0 checks on every read"},
	{Name: "digest_heard_ttl", Default: "30s", Doc: "with PostgreSQL, how long a replica answers a trip's digest, and a user's listing stamp, from memory without reading them again while it hears the other replicas' writes (LISTEN/NOTIFY): a write made through any replica is read as soon as its notice arrives, one made outside every replica (a script) within this; while the notices are not heard, digest_cache_ttl holds; 0 does not listen"},
	{Name: "digest_cache_size", Default: 25000, Doc: "how many trips' digests (get_trip) a replica remembers, the most recently read kept: about 2 KB a 16-day trip, held as bytes the collector does not walk, so 50 MB at the default; a read of a trip it does not hold reads the trip's row"},
	{Name: "source_allow_http", Default: false, Doc: "let route sources use plain http (local development only)"},
	{Name: "source_allow", Default: "", Doc: "comma-separated address ranges route fetching may reach despite the SSRF rules (e.g. 127.0.0.1/32 for local development); empty by default"},
	{Name: "source_base_urls", Default: "", Doc: "comma-separated provider=URL overrides of the route sources' base URLs (komoot, strava, ridewithgps), for local servers"},
	{Name: "router_url", Default: "", Doc: "base URL of a self-hosted BRouter for add_waypoint; empty for the straight-line router"},
	{Name: "overpass_url", Default: "", Doc: "an Overpass API endpoint for accommodation candidates; empty for the local store (cairn pois import)"},
	{Name: "weather_url", Default: "", Doc: "a forecast service answering in Open-Meteo's format (e.g. https://api.open-meteo.com/v1/forecast); empty: no weather, and the trips say so"},
	{Name: "events_url", Default: "", Doc: "an iCalendar (RFC 5545) feed of events with GEO positions; empty: no events, and the trips say so"},
}

var placeKeys = []config.Key{
	{Name: "nominatim_url", Default: "", Doc: "base URL of a Nominatim for search_places; empty for the offline gazetteer"},
}

// Words are what the door (sign-in, OAuth consent, mail) says of the trip
// planner.
func Words() door.Words {
	return door.Words{
		Title: "Cairn", MailFrom: "Cairn <no-reply@cairn.local>", ExportName: "bike-trip-planner-export", Locale: "fr",
		Notifications: accounts.NotificationsOf(Preferences{WeatherSafety: true, AnalysisDone: true}),
	}
}

// Preferences are the trip planner's notification categories: weather
// warnings on a planned day, a finished analysis, a newly opened zone.
type Preferences struct {
	WeatherSafety bool `json:"weatherSafety"`
	AnalysisDone  bool `json:"analysisDone"`
	ZoneOpening   bool `json:"zoneOpening"`
}

// Product is the trip planner as the framework composes it.
func Product() app.Product {
	return app.Product{
		Name:    "cairn",
		Title:   "Cairn trip planner",
		Version: Version,
		Description: "Plan bikepacking trips: import a route, cut it into days, edit the days, pick accommodations, share, export. " +
			"Every operation is also an MCP tool at /mcp unless its description says why not. " +
			"Tokens: `cairn token create --email you@example.com --scope trips:read --scope trips:write` on the server, " +
			"a sign-in by mail (`POST /auth/request-link`, then `POST /auth/verify`), or OAuth for MCP clients.",
		Instructions: "Cairn plans bikepacking trips. Create a trip from a route address with create_trip, " +
			"then read it with get_trip (partial: true while the days are computed; poll again later). " +
			"Writes that change a trip need the version get_trip publishes; destructive ones answer an impact summary " +
			"and a confirmationToken first, and act when called again with it and the same arguments.",
		OwnAuthorizationServer: true,
		Modules: append([]app.Module{
			{Name: "settings", Options: fx.Provide(Decode), Keys: devKeys},
			{
				Name: "trips",
				Options: fx.Options(trips.Module,
					fx.Decorate(func(s *trips.Store, set Settings, n *storage.Notices) *trips.Store {
						s.SetCheckEvery(set.DigestCacheTTL)
						s.SetNotices(n, set.DigestHeardTTL)
						s.SetDigestCacheSize(set.DigestCacheSize)
						return s
					}),
					fx.Provide(provideSource, providePlaces, provideRouter, provideDispatcher,
						provideMapData, provideForecasts, provideEvents, provideBorders, provideNamer,
						func(s *app.Server) trips.PublicURL { return s.URL },
						fx.Annotate(computeWork, fx.ResultTags(`group:"jobs"`)),
						fx.Annotate(provideAccountTrips, fx.ResultTags(`group:"account_holders"`)))),
				Migrations: []migrations.Source{trips.Migrations, poi.Migrations},
				Keys:       tripKeys,
			},
			{
				Name:    "placesearch",
				Options: fx.Options(placesearch.Module, fx.Provide(provideSearcher)),
				Keys:    placeKeys,
			},
		}, door.Modules(Words())...),
	}
}

// Keys are the product's configuration keys, for config.Load.
func Keys() []config.Key { return Product().Keys() }
