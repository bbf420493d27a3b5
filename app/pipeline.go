package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"

	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"
	"go.uber.org/fx"

	"cairn/app/config"
	"cairn/app/database"
	"cairn/app/guardstore"
	"cairn/app/jobs"
	"cairn/app/progress"
	"cairn/modules/route/fetch"
	"cairn/modules/route/places"
	"cairn/modules/route/poi"
	"cairn/modules/route/routing"
	"cairn/modules/route/source"
	"cairn/modules/trips"
)

// provideProgress shares progress through Redis when configured, so a
// stream opened on one replica sees work done on another.
func provideProgress(cfg config.Config, rc *redis.Client) trips.Progress {
	if rc == nil {
		return trips.NewLocalProgress()
	}
	return progress.Redis{Client: rc, Prefix: cfg.RedisPrefix + "progress:"}
}

func provideQueue(db *bun.DB, engine database.Engine, cfg config.Config) (*jobs.Queue, trips.Dispatcher, error) {
	q, err := jobs.Open(db, engine, database.SQLitePath(cfg.DatabaseURL, cfg.DataDir))
	return q, q, err
}

// startQueue runs the job queue once the database is ready (its hook is
// appended after the database's), and stops it first on shutdown: running
// computations get the grace period, then are cancelled and retried later.
func startQueue(lc fx.Lifecycle, q *jobs.Queue, p *trips.Pipeline, db *bun.DB, engine database.Engine, cfg config.Config, log *slog.Logger) {
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if engine == database.SQLite {
				if err := q.Migrate(ctx); err != nil {
					return fmt.Errorf("job queue migrations: %w", err)
				}
			} else if msgs, err := q.Validate(ctx); err != nil || len(msgs) > 0 {
				return fmt.Errorf("job queue is not migrated (%v %s): run `cairn migrate` first", err, strings.Join(msgs, "; "))
			}
			return q.Start(context.Background(), p, jobs.Config{
				Workers: cfg.Workers, PollInterval: cfg.JobPollInterval,
				Purgers: []jobs.Purger{guardstore.Keys{DB: db}, guardstore.Confirmations{DB: db}},
			}, log.With("component", "jobs"))
		},
		OnStop: func(ctx context.Context) error { return q.Stop(ctx) },
	})
}

// routeSource adapts the route sources to the trips pipeline, telling a
// failure worth retrying (a provider down) from one that is not (an
// unsupported address, a removed route, an empty one).
type routeSource struct{ f *source.Fetcher }

func (s routeSource) Fetch(ctx context.Context, url string) (trips.Imported, error) {
	r, err := s.f.Fetch(ctx, url)
	if err != nil {
		var se *source.Error
		if errors.As(err, &se) && (se.Code == source.CodeEmptyRoute || permanent(se.Err)) {
			return trips.Imported{}, &trips.Permanent{Code: se.Code, Err: err}
		}
		return trips.Imported{}, err
	}
	return trips.Imported{Title: r.Title, SourceType: r.SourceType, Tracks: r.Tracks}, nil
}

func permanent(err error) bool {
	var st *fetch.StatusError
	if errors.As(err, &st) {
		return st.Code < 500 && st.Code != http.StatusTooManyRequests
	}
	return errors.Is(err, source.ErrUnsupported) || errors.Is(err, fetch.ErrForbiddenAddress) || errors.Is(err, fetch.ErrScheme)
}

func provideSource(cfg config.Config) (trips.Source, error) {
	opts := source.Options{
		Fetch: fetch.Options{AllowHTTP: cfg.SourceAllowHTTP},
		Cache: source.NewMemoryCache(1000, nil),
	}
	for _, p := range splitList(cfg.SourceAllow) {
		prefix, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("source_allow: %q is not an address range such as 127.0.0.1/32", p)
		}
		opts.Fetch.Allow = append(opts.Fetch.Allow, prefix)
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

// Migrate applies the schema and the job queue's own migrations to the
// configured database, and reports how many schema migrations ran.
func Migrate(ctx context.Context, cfg config.Config) (int, database.Engine, error) {
	db, engine, err := database.Open(cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return 0, "", err
	}
	defer db.Close()
	n, err := database.Migrate(ctx, db)
	if err != nil {
		return 0, engine, err
	}
	q, err := jobs.Open(db, engine, database.SQLitePath(cfg.DatabaseURL, cfg.DataDir))
	if err != nil {
		return n, engine, err
	}
	defer q.Stop(ctx)
	return n, engine, q.Migrate(ctx)
}

// providePlaces finds accommodation candidates in the local points-of-interest
// store, filled by `cairn pois import`, or through Overpass when configured.
func providePlaces(db *bun.DB, cfg config.Config) poi.Provider {
	if cfg.OverpassURL != "" {
		return poi.NewOverpass(cfg.OverpassURL)
	}
	return poi.NewStore(db)
}

// provideRouter routes detours through a self-hosted BRouter when one is
// configured, along great circles (approximate) otherwise.
func provideRouter(cfg config.Config) (routing.Router, error) {
	return routing.New(routing.Config{BRouter: routing.BRouterOptions{BaseURL: cfg.RouterURL}})
}

// provideSearcher answers search_places from the embedded gazetteer, or from
// a Nominatim when one is configured.
func provideSearcher(cfg config.Config) (places.Searcher, error) {
	if cfg.NominatimURL == "" {
		return places.Embedded(), nil
	}
	return places.NewNominatim(places.NominatimConfig{BaseURL: cfg.NominatimURL})
}
