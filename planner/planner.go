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
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/oauth"
	"cairn.dev/cairn/modules/placesearch"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/trips"
)

// Version is the product's version, set at build time.
var Version = "0.1.0"

// Settings are the product's configuration keys (Keys), decoded.
type Settings struct {
	DevEmail        string        `koanf:"dev_email"`
	AuthCacheTTL    time.Duration `koanf:"auth_cache_ttl"`
	DigestCacheTTL  time.Duration `koanf:"digest_cache_ttl"`
	SourceAllowHTTP bool          `koanf:"source_allow_http"`
	SourceAllow     string        `koanf:"source_allow"`
	SourceBaseURLs  string        `koanf:"source_base_urls"`
	RouterURL       string        `koanf:"router_url"`
	NominatimURL    string        `koanf:"nominatim_url"`
	OverpassURL     string        `koanf:"overpass_url"`
	SMTPURL         string        `koanf:"smtp_url"`
	MailFrom        string        `koanf:"mail_from"`
	FrontendURL     string        `koanf:"frontend_url"`
	AuthSecret      string        `koanf:"auth_secret"`
	// OAuthMetadataAllow and OAuthMetadataRoots widen what the client
	// metadata documents may be fetched from (oauthKeys).
	OAuthMetadataAllow string `koanf:"oauth_metadata_allow"`
	OAuthMetadataRoots string `koanf:"oauth_metadata_roots"`
}

// Decode reads the product's settings from a loaded configuration.
func Decode(cfg config.Config) (Settings, error) {
	var s Settings
	if err := cfg.Decode(&s); err != nil {
		return s, err
	}
	if s.AuthCacheTTL < 0 {
		return s, errors.New("auth_cache_ttl: must not be negative")
	}
	if s.DigestCacheTTL < 0 {
		return s, errors.New("digest_cache_ttl: must not be negative")
	}
	return s, nil
}

var accountKeys = []config.Key{
	{Name: "dev_email", Default: "dev@cairn.local", Doc: "email of the development user (dev mode)"},
	{Name: "auth_cache_ttl", Default: "5s", Doc: "how long a replica remembers a resolved token (a revocation reaches other replicas within it); 0 disables"},
	{Name: "smtp_url", Default: "", Doc: "smtp://[user:password@]host[:port] (STARTTLS when offered; ?tls=none or ?tls=required) or smtps://… to send mail; empty: mail goes to the outbox in data_dir (cairn mail)"},
	{Name: "mail_from", Default: "Cairn <no-reply@cairn.local>", Doc: "sender address of the mails"},
	{Name: "frontend_url", Default: "", Doc: "where mailed links point ({frontend_url}/auth/verify/{token}); empty: public_url"},
	{Name: "auth_secret", Default: "", Doc: "secret (at least 16 characters) keying the refresh tokens' encryption and the early-access signatures; the same on every replica; empty: one drawn once and kept in data_dir/auth_secret"},
}

var tripKeys = []config.Key{
	{Name: "digest_cache_ttl", Default: "250ms", Doc: "how long a replica answers a trip's digest (get_trip) from memory before checking the trip's revision again: a write made on another replica is read within it, one made on this replica at once; 0 checks on every read"},
	{Name: "source_allow_http", Default: false, Doc: "let route sources use plain http (local development only)"},
	{Name: "source_allow", Default: "", Doc: "comma-separated address ranges route fetching may reach despite the SSRF rules (e.g. 127.0.0.1/32 for local development); empty by default"},
	{Name: "source_base_urls", Default: "", Doc: "comma-separated provider=URL overrides of the route sources' base URLs (komoot, strava, ridewithgps), for local servers"},
	{Name: "router_url", Default: "", Doc: "base URL of a self-hosted BRouter for add_waypoint; empty for the straight-line router"},
	{Name: "overpass_url", Default: "", Doc: "an Overpass API endpoint for accommodation candidates; empty for the local store (cairn pois import)"},
}

var oauthKeys = []config.Key{
	{Name: "oauth_metadata_allow", Default: "", Doc: "comma-separated address ranges OAuth client metadata documents may be fetched from despite the SSRF rules (a client on a private network; 127.0.0.1/32 for a local test server); empty by default"},
	{Name: "oauth_metadata_roots", Default: "", Doc: "a PEM file of certificate authorities trusted, besides the system's, for OAuth client metadata documents (a private CA); empty by default"},
}

var placeKeys = []config.Key{
	{Name: "nominatim_url", Default: "", Doc: "base URL of a Nominatim for search_places; empty for the offline gazetteer"},
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
		Modules: []app.Module{
			{Name: "settings", Options: fx.Provide(Decode)},
			{
				Name: "accounts",
				Options: fx.Options(accounts.Module,
					fx.Provide(func(s *accounts.Store) guards.Authenticator { return s },
						func(s *accounts.Store) app.TokenIssuer { return s }),
					fx.Decorate(func(s *accounts.Store, set Settings) *accounts.Store { s.SetCacheTTL(set.AuthCacheTTL); return s }),
					fx.Provide(Mailer, AuthSettings)),
				Migrations: []migrations.Source{accounts.Migrations},
				Keys:       accountKeys,
			},
			{
				Name: "trips",
				Options: fx.Options(trips.Module,
					fx.Decorate(func(s *trips.Store, set Settings) *trips.Store { s.SetCheckEvery(set.DigestCacheTTL); return s }),
					fx.Provide(provideSource, providePlaces, provideRouter, provideDispatcher,
						func(s *app.Server) trips.PublicURL { return s.URL },
						fx.Annotate(computeWork, fx.ResultTags(`group:"jobs"`)),
						fx.Annotate(func(s *trips.Store) accounts.Holder { return trips.NewAccountData(s) }, fx.ResultTags(`group:"account_holders"`)))),
				Migrations: []migrations.Source{trips.Migrations, poi.Migrations},
				Keys:       tripKeys,
			},
			{
				// The OAuth authorization server for MCP clients; its
				// issuer is this server.
				Name: "oauth",
				Options: fx.Options(oauth.Module,
					fx.Provide(func(s *app.Server) oauth.Issuer { return s.URL },
						func(l guards.Limiter) oauth.Limiter { return l }, provideMetadataFetcher)),
				Migrations: []migrations.Source{oauth.Migrations},
				Keys:       oauthKeys,
			},
			{
				Name:    "placesearch",
				Options: fx.Options(placesearch.Module, fx.Provide(provideSearcher)),
				Keys:    placeKeys,
			},
		},
	}
}

// Keys are the product's configuration keys, for config.Load.
func Keys() []config.Key { return Product().Keys() }
