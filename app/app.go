// Package app is the composition root: it wires the modules, the guard
// chain and both faces with fx, loads the configuration and runs the server.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"cairn/app/config"
	"cairn/app/database"
	"cairn/app/guardstore"
	"cairn/app/ratelimit"
	"cairn/guards"
	"cairn/modules/accounts"
	"cairn/modules/placesearch"
	"cairn/modules/trips"
	"cairn/operations"
	"cairn/registry"
	"cairn/tools"
)

// Version is the server's version, set at build time.
var Version = "0.1.0"

// Modules lists the feature modules. A new module is added here.
var Modules = fx.Options(
	accounts.Module,
	trips.Module,
	placesearch.Module,
)

// Options is the whole application for a configuration. Tests and the
// cairn command build it alike.
func Options(cfg config.Config, log *slog.Logger) fx.Option {
	return fx.Options(
		fx.Supply(cfg, log),
		fx.WithLogger(func() fxevent.Logger {
			if cfg.LogLevel != "debug" {
				return fxevent.NopLogger // fx's wiring events are noise unless debugging
			}
			return &fxevent.SlogLogger{Logger: log.With("component", "fx")}
		}),
		fx.Provide(provideDB, provideRedis, provideLimiter, provideAPI, provideChain, provideServer,
			provideProgress, provideQueue, provideSource, providePlaces, provideRouter, provideSearcher),
		Modules,
		fx.Decorate(func(s *accounts.Store) *accounts.Store { s.SetCacheTTL(cfg.AuthCacheTTL); return s }),
		fx.Invoke(mount, startQueue),
	)
}

func provideDB(lc fx.Lifecycle, cfg config.Config, log *slog.Logger) (*bun.DB, database.Engine, error) {
	db, engine, err := database.Open(cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, "", err
	}
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := db.PingContext(ctx); err != nil {
				return fmt.Errorf("database (%s) is not reachable: %w", engine, err)
			}
			if engine == database.SQLite {
				n, err := database.Migrate(ctx, db)
				if err != nil {
					return err
				}
				log.Info("database ready", "engine", engine, "migrations_applied", n)
				return nil
			}
			n, err := database.Pending(ctx, db)
			if err != nil {
				return err
			}
			if n > 0 {
				return fmt.Errorf("database has %d pending migration(s): run `cairn migrate` first", n)
			}
			log.Info("database ready", "engine", engine)
			return nil
		},
		OnStop: func(context.Context) error { return db.Close() },
	})
	return db, engine, nil
}

// provideRedis returns nil when no Redis is configured: every user of it
// then falls back to its in-process implementation.
func provideRedis(lc fx.Lifecycle, cfg config.Config) (*redis.Client, error) {
	if cfg.RedisURL == "" {
		return nil, nil
	}
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("redis_url: %w", err)
	}
	rc := redis.NewClient(opt)
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := rc.Ping(ctx).Err(); err != nil {
				return fmt.Errorf("redis is not reachable: %w", err)
			}
			return nil
		},
		OnStop: func(context.Context) error { return rc.Close() },
	})
	return rc, nil
}

func provideLimiter(cfg config.Config, rc *redis.Client) guards.Limiter {
	if rc == nil {
		return ratelimit.NewMemory()
	}
	return ratelimit.Redis{Client: rc, Prefix: cfg.RedisPrefix + "rl:"}
}

// HTTP holds the router and the huma API the HTTP face registers on.
type HTTP struct {
	Mux     *http.ServeMux
	API     huma.API
	Schemas *operations.Schemas
}

func provideAPI(cfg config.Config) *HTTP {
	mux := http.NewServeMux()
	hc := huma.DefaultConfig("Cairn", Version)
	hc.Info.Description = "Plan bikepacking trips: import a route, cut it into days, edit the days, pick accommodations, share, export. " +
		"Every operation is also an MCP tool at /mcp unless its description says why not."
	hc.Info.License = &huma.License{Name: "MIT", Identifier: "MIT"}
	hc.Servers = []*huma.Server{{URL: cfg.URL(), Description: "this server"}}
	hc.DocsPath = ""     // served by operations.MountDocs, offline
	hc.CreateHooks = nil // the $schema links huma adds serve huma.Register handlers, which the faces do not use
	hc.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "Personal access token (`cairn token create`)."},
	}
	api := humago.New(mux, hc)
	return &HTTP{Mux: mux, API: api, Schemas: operations.NewSchemas(api.OpenAPI().Components.Schemas)}
}

func provideChain(cfg config.Config, db *bun.DB, accts *accounts.Store, limiter guards.Limiter, h *HTTP) (*guards.Chain, error) {
	return guards.NewChain(
		guards.Authenticate{Tokens: accts},
		guards.Scope{},
		guards.RateLimit{Limiter: limiter},
		guards.Owner{},
		guards.Arguments{Schema: h.Schemas},
		guards.Read{},
		guards.Merge{},
		guards.Validate{},
		guards.Lock{},
		guards.Precondition{},
		guards.Confirm{Store: guardstore.Confirmations{DB: db}, TTL: cfg.ConfirmTTL},
		guards.Idempotency{Store: guardstore.Keys{DB: db}, Tx: database.Tx{DB: db}},
	)
}

// Server is the running application: the registry, both faces and the
// listener.
type Server struct {
	Registry *registry.Registry
	HTTP     *operations.Face
	MCP      *tools.Face
	Handler  http.Handler

	cfg      config.Config
	listener net.Listener
}

// URL is where the server answers (with the real port once started).
func (s *Server) URL() string {
	if s.listener != nil && s.cfg.PublicURL == "" {
		return "http://" + s.listener.Addr().String()
	}
	return s.cfg.URL()
}

func provideServer(cfg config.Config) *Server { return &Server{cfg: cfg} }

type mountParams struct {
	fx.In
	LC        fx.Lifecycle
	Cfg       config.Config
	Log       *slog.Logger
	DB        *bun.DB
	Redis     *redis.Client
	HTTP      *HTTP
	Chain     *guards.Chain
	Accounts  *accounts.Store
	Server    *Server
	Declarers []registry.Declarer `group:"declarations"`
}

// mount is the one place that fills the registry, checks it and mounts both
// faces, so nothing depends on the order fx runs constructors in.
func mount(p mountParams) error {
	reg := registry.New()
	for _, d := range p.Declarers {
		d(reg)
	}
	if err := reg.Check(); err != nil {
		return err
	}
	s := p.Server
	s.Registry = reg
	s.HTTP = operations.New(p.HTTP.API, p.Chain, p.HTTP.Schemas, p.Log)
	s.HTTP.Mount(reg)

	mcpServer := mcp.NewServer(&mcp.Implementation{Name: "cairn", Title: "Cairn trip planner", Version: Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: p.Log.With("component", "mcp")})
	s.MCP = tools.New(mcpServer, p.Chain, p.HTTP.Schemas, p.Log)
	s.MCP.Mount(reg)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer },
		&mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute, Logger: p.Log.With("component", "mcp")})
	p.HTTP.Mux.Handle("/mcp", requireBearer(p.Accounts, mcpHandler))

	operations.MountDocs(p.HTTP.Mux)
	mountHealth(p.HTTP.Mux, p.DB, p.Redis)
	s.Handler = logRequests(p.Log, p.HTTP.Mux)

	srv := &http.Server{Handler: s.Handler, ReadHeaderTimeout: 10 * time.Second}
	p.LC.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			ln, err := net.Listen("tcp", p.Cfg.Addr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", p.Cfg.Addr, err)
			}
			s.listener = ln
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					p.Log.Error("server stopped", "err", err)
				}
			}()
			p.Log.Info("listening", "url", s.URL())
			return nil
		},
		OnStop: func(ctx context.Context) error {
			// Shutdown stops accepting and waits for in-flight requests.
			ctx, cancel := context.WithTimeout(ctx, p.Cfg.ShutdownGrace)
			defer cancel()
			return srv.Shutdown(ctx)
		},
	})
	return nil
}

const instructions = "Cairn plans bikepacking trips. Create a trip from a route address with create_trip, " +
	"then read it with get_trip (partial: true while the days are computed; poll again later). " +
	"Writes that change a trip need the version get_trip publishes; destructive ones answer an impact summary " +
	"and a confirmationToken first, and act when called again with it and the same arguments."

// Registry builds the application's registry without starting anything:
// nothing connects until start, so this needs no database or network.
func Registry(cfg config.Config) (*registry.Registry, error) {
	var srv *Server
	log := slog.New(slog.DiscardHandler)
	fxApp := fx.New(Options(cfg, log), fx.NopLogger, fx.Populate(&srv))
	if err := fxApp.Err(); err != nil {
		return nil, err
	}
	return srv.Registry, nil
}
