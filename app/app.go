// Package app is the framework's composition root. A product hands it its
// modules; it loads nothing of its own beyond the framework: storage and
// migrations, the guard chain and its stores, the rate limiter, the job
// queue, the progress hub, both faces and the server's lifecycle, wired
// with fx.
//
// What a module contributes travels through fx groups, so nothing here
// names a product package:
//
//   - registry.Declarer in group "declarations": its operations and scopes;
//   - jobs.Work in group "jobs": its background workers.
//
// Its migrations and configuration keys travel on the Module itself. The
// product provides one guards.Authenticator: who a bearer token is.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/guardstore"
	"cairn.dev/cairn/app/jobs"
	"cairn.dev/cairn/app/ratelimit"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/tools"
)

// Module is one feature of a product.
type Module struct {
	Name       string
	Options    fx.Option           // its providers; nil when it has none
	Migrations []migrations.Source // its tables
	Keys       []config.Key        // its configuration keys, read back with config.Config.Decode
}

// Product is what a team builds on the framework: a name and its modules.
type Product struct {
	Name         string // short machine name, e.g. "cairn" (the MCP implementation name)
	Title        string // for people: the OpenAPI title and the MCP implementation title
	Version      string
	Description  string // the OpenAPI document's description
	Instructions string // what an MCP client is told about the server
	Modules      []Module
	// OwnAuthorizationServer says that a module serves an OAuth
	// authorization server at the server's own URL (its metadata at
	// /.well-known/oauth-authorization-server): the protected resource
	// metadata names it as the issuer of tokens.
	OwnAuthorizationServer bool
}

// Keys are the product's configuration keys, for config.Load.
func (p Product) Keys() []config.Key {
	var out []config.Key
	for _, m := range p.Modules {
		out = append(out, m.Keys...)
	}
	return out
}

// Migrations orders the framework's and every module's migrations into one
// history.
func (p Product) Migrations() (*migrate.Migrations, error) {
	var sources []migrations.Source
	for _, m := range p.Modules {
		sources = append(sources, m.Migrations...)
	}
	return migrations.Collect(sources...)
}

// Options is the whole application of a product for a configuration. Tests
// and commands build it alike.
func Options(p Product, cfg config.Config, log *slog.Logger) fx.Option {
	log = WithRequestIDs(log)
	opts := []fx.Option{
		fx.Supply(p, cfg, log),
		fx.WithLogger(func() fxevent.Logger {
			if cfg.LogLevel != "debug" {
				return fxevent.NopLogger // fx's wiring events are noise unless debugging
			}
			return &fxevent.SlogLogger{Logger: log.With("component", "fx")}
		}),
		fx.Provide(provideDB, provideNotices, provideRedis, provideLimiter, provideAPI, provideChain, provideServer,
			provideProgress, provideTickets, provideQueue, provideMetrics, registry.New),
	}
	for _, m := range p.Modules {
		if m.Options != nil {
			opts = append(opts, m.Options)
		}
	}
	opts = append(opts, fx.Invoke(declare, mount, startQueue, serveMetrics))
	return fx.Options(opts...)
}

func provideDB(lc fx.Lifecycle, p Product, cfg config.Config, log *slog.Logger) (*bun.DB, storage.Engine, error) {
	ms, err := p.Migrations()
	if err != nil {
		return nil, "", err
	}
	db, engine, err := storage.Open(cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, "", err
	}
	lc.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if err := db.PingContext(ctx); err != nil {
				return fmt.Errorf("database (%s) is not reachable: %w", engine, err)
			}
			if engine == storage.SQLite {
				n, err := storage.Migrate(ctx, db, ms)
				if err != nil {
					return err
				}
				log.Info("database ready", "engine", engine, "migrations_applied", n)
				return nil
			}
			n, err := storage.Pending(ctx, db, ms)
			if err != nil {
				return err
			}
			if n > 0 {
				return fmt.Errorf("database has %d pending migration(s): run the migrate command first", n)
			}
			log.Info("database ready", "engine", engine)
			return nil
		},
		OnStop: func(context.Context) error { return db.Close() },
	})
	return db, engine, nil
}

// provideNotices listens for the writes other replicas announce on
// PostgreSQL (storage.Notices); nil on SQLite. It stops before the
// database closes.
func provideNotices(lc fx.Lifecycle, db *bun.DB, log *slog.Logger) *storage.Notices {
	n := storage.NewNotices(db, log.With("component", "notices"))
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error { n.Start(); return nil },
		OnStop:  func(context.Context) error { n.Close(); return nil },
	})
	return n
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

// provideProgress shares progress through Redis when configured, so a
// stream opened on one replica sees work done on another.
func provideProgress(cfg config.Config, rc *redis.Client) progress.Hub {
	if rc == nil {
		return progress.NewLocal()
	}
	return progress.Redis{Client: rc, Prefix: cfg.RedisPrefix + "progress:"}
}

// provideTickets keeps stream tickets in Redis when configured, so a
// ticket one replica issued opens a stream on another.
func provideTickets(cfg config.Config, rc *redis.Client) progress.Tickets {
	if rc == nil {
		return progress.NewLocalTickets()
	}
	return progress.RedisTickets{Client: rc, Prefix: cfg.RedisPrefix + "ticket:"}
}

func provideQueue(db *bun.DB, engine storage.Engine, cfg config.Config) (*jobs.Queue, error) {
	return jobs.Open(db, engine, storage.SQLitePath(cfg.DatabaseURL, cfg.DataDir))
}

type queueParams struct {
	fx.In
	LC       fx.Lifecycle
	Queue    *jobs.Queue
	DB       *bun.DB
	Engine   storage.Engine
	Cfg      config.Config
	Log      *slog.Logger
	Observed *observed
	Work     []jobs.Work `group:"jobs"`
}

// startQueue runs the job queue once the database is ready (its hook is
// appended after the database's), and stops it first on shutdown: running
// jobs get the grace period, then are cancelled and retried later.
func startQueue(p queueParams) {
	p.LC.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			if p.Engine == storage.SQLite {
				if err := p.Queue.Migrate(ctx); err != nil {
					return fmt.Errorf("job queue migrations: %w", err)
				}
			} else if msgs, err := p.Queue.Validate(ctx); err != nil || len(msgs) > 0 {
				return fmt.Errorf("job queue is not migrated (%v %s): run the migrate command first", err, strings.Join(msgs, "; "))
			}
			return p.Queue.Start(context.Background(), jobs.Config{
				Workers: p.Cfg.Workers, PollInterval: p.Cfg.JobPollInterval,
				Timeout: p.Cfg.JobTimeout, RescueAfter: p.Cfg.JobRescueAfter, Observe: p.Observed.job,
				Purgers: []jobs.Purger{guardstore.Keys{DB: p.DB}, guardstore.Confirmations{DB: p.DB}},
			}, p.Work, p.Log.With("component", "jobs"))
		},
		OnStop: func(ctx context.Context) error { return p.Queue.Stop(ctx) },
	})
}

// HTTP holds the router and the huma API the HTTP face registers on.
type HTTP struct {
	Mux     *http.ServeMux
	API     huma.API
	Schemas *operations.Schemas
}

func provideAPI(p Product, cfg config.Config) *HTTP {
	mux := http.NewServeMux()
	hc := huma.DefaultConfig(p.Title, p.Version)
	hc.Info.Description = p.Description
	hc.Info.License = &huma.License{Name: "MIT", Identifier: "MIT"}
	hc.Servers = []*huma.Server{{URL: cfg.URL(), Description: "this server"}}
	hc.DocsPath = ""     // served by operations.MountDocs, offline
	hc.CreateHooks = nil // the $schema links huma adds serve huma.Register handlers, which the faces do not use
	hc.Components.Schemas = operations.NewSchemaRegistry()
	hc.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "A bearer access token."},
	}
	api := humago.New(mux, hc)
	return &HTTP{Mux: mux, API: api, Schemas: operations.NewSchemas(api.OpenAPI().Components.Schemas)}
}

type chainParams struct {
	fx.In
	Lc       fx.Lifecycle
	Cfg      config.Config
	Log      *slog.Logger
	DB       *bun.DB
	Auth     guards.Authenticator
	Limiter  guards.Limiter
	HTTP     *HTTP
	Observed *observed
}

func provideChain(p chainParams) (*guards.Chain, error) {
	cfg, db, h := p.Cfg, p.DB, p.HTTP
	// With Redis, a limit not declared SharedOnly counts in process while
	// Redis cannot be reached (docs/configuration.md: "Rate limits while Redis is down").
	var fallback guards.Limiter
	if cfg.RedisURL != "" {
		fallback = ratelimit.NewMemory()
	}
	notice := &fallbackNotice{log: p.Log.With("component", "ratelimit"), counts: p.Observed.fallbacks}
	ch, err := guards.NewChain(
		guards.Authenticate{Tokens: p.Auth},
		guards.Scope{},
		guards.RateLimit{Limiter: p.Limiter, Fallback: fallback, Replays: guardstore.Keys{DB: db}, OnFallback: notice.note},
		guards.Owner{Schema: h.Schemas},
		guards.Arguments{Schema: h.Schemas},
		guards.Read{Tx: storage.Tx{DB: db}},
		guards.Merge{Tx: storage.Tx{DB: db}},
		guards.Validate{},
		guards.Lock{},
		guards.Precondition{},
		guards.Confirm{Store: guardstore.Confirmations{DB: db}, TTL: cfg.ConfirmTTL, Tx: storage.Tx{DB: db}},
		guards.Idempotency{Store: guardstore.Keys{DB: db}, Tx: storage.Tx{DB: db}},
	)
	if err != nil {
		return nil, err
	}
	// Drawn or read once the migrations ran, so that no call waits for it.
	keys := &guardstore.InputKeys{DB: db}
	p.Lc.Append(fx.Hook{OnStart: func(ctx context.Context) error {
		_, err := keys.Key(ctx)
		return err
	}})
	return ch.WithObserver(p.Observed).WithInputSeal(guards.InputSeal{Keys: keys}), nil
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
	metrics  net.Listener // nil without metrics_addr
}

// URL is where the server answers (with the real port once started).
func (s *Server) URL() string {
	if s.listener != nil && s.cfg.PublicURL == "" {
		return "http://" + s.listener.Addr().String()
	}
	return s.cfg.URL()
}

// Names are the origins clients may know the server by, URL() first: the
// configured public_aliases and, when URL() is a loopback address, the
// other loopback names with its port (a client configured with localhost
// reaches the server listening on 127.0.0.1).
func (s *Server) Names() []string {
	own := s.URL()
	names := []string{own}
	aliases, _ := s.cfg.Aliases() // checked when the configuration was loaded
	if u, err := url.Parse(own); err == nil && u.Scheme == "http" {
		if h := u.Hostname(); h == "localhost" || (net.ParseIP(h) != nil && net.ParseIP(h).IsLoopback()) {
			for _, twin := range []string{"127.0.0.1", "localhost", "[::1]"} {
				aliases = append(aliases, "http://"+twin+portOf(u))
			}
		}
	}
	for _, n := range aliases {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return ":" + p
	}
	return ""
}

func provideServer(cfg config.Config, reg *registry.Registry) *Server {
	return &Server{cfg: cfg, Registry: reg}
}

type declareParams struct {
	fx.In
	Registry  *registry.Registry
	Declarers []registry.Declarer `group:"declarations"`
}

// declare fills the registry from every module and checks it, before
// anything starts: a broken declaration names every problem at once.
func declare(p declareParams) error {
	for _, d := range p.Declarers {
		d(p.Registry)
	}
	return p.Registry.Check()
}

type mountParams struct {
	fx.In
	LC      fx.Lifecycle
	Product Product
	Cfg     config.Config
	Log     *slog.Logger
	DB      *bun.DB
	Redis   *redis.Client
	HTTP    *HTTP
	Chain   *guards.Chain
	Auth    guards.Authenticator
	Tickets progress.Tickets
	Server  *Server
	Infra   []registry.Infrastructure `group:"infrastructure"`
}

// mount serves both faces of the checked registry, and the listener.
func mount(p mountParams) {
	s := p.Server
	reg := s.Registry
	s.HTTP = operations.New(p.HTTP.API, p.Chain, p.HTTP.Schemas, p.Log, p.Cfg.MaxBody)
	s.HTTP.RecheckStreams(p.Cfg.StreamRecheck)
	s.HTTP.AcceptTickets(p.Tickets)
	proxies, _ := p.Cfg.Proxies() // checked when the configuration was loaded
	s.HTTP.TrustProxies(proxies)
	s.HTTP.LocateFrom(p.Cfg.PublicURL)
	s.HTTP.Mount(reg)

	mcpLog := p.Log.With("component", "mcp")
	mcpServer := tools.NewServer(&mcp.Implementation{Name: p.Product.Name, Title: p.Product.Title, Version: p.Product.Version},
		p.Product.Instructions, mcpLog)
	s.MCP = tools.New(mcpServer, p.Chain, p.HTTP.Schemas, p.Log)
	s.MCP.Mount(reg)
	s.MCP.ListCallable(p.Auth)
	s.MCP.AcceptTasks(taskStore(p.Redis, p.Cfg.RedisPrefix))
	// Stateless, both revisions: nothing of a conversation lives in this
	// process between two requests (docs/mcp.md: "Transport").
	mcpHandler := s.MCP.Handler(mcpLog)
	origins, _ := p.Cfg.Origins() // checked when the configuration was loaded
	res := newResource(reg, s.URL, p.Product.OwnAuthorizationServer)
	res.names = s.Names
	p.HTTP.Mux.Handle("/mcp", operations.RequireOrigin(originAllowed(origins, s.URL),
		operations.LimitBody(p.Cfg.MaxBody, operations.WithClientAddress(proxies, tools.SpeakLanguage(reg, res.gate(p.Auth, mcpHandler))))))

	operations.MountDocs(p.HTTP.Mux)
	mountHealth(p.HTTP.Mux, p.DB, p.Redis)
	res.mount(p.HTTP.Mux)
	for _, in := range p.Infra {
		p.HTTP.Mux.Handle(in.Pattern, operations.WithClientAddress(proxies, in.Handler))
	}
	s.Handler = withRequestID(logRequests(p.Log, withCORS(origins,
		operations.WithResourceMetadata(func() string { return s.URL() + MetadataPath }, p.HTTP.Mux))))

	srv := &http.Server{Handler: s.Handler, ReadHeaderTimeout: 10 * time.Second}
	p.LC.Append(fx.Hook{
		OnStart: func(ctx context.Context) error {
			ln, err := net.Listen("tcp", p.Cfg.Addr)
			if err != nil {
				return fmt.Errorf("listen on %s: %w", p.Cfg.Addr, err)
			}
			s.listener = ln
			if err := recordURL(p.Cfg, s.URL()); err != nil {
				p.Log.Warn("the server's address could not be kept for the product's commands", "err", err)
			}
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
			forgetURL(p.Cfg, s.URL())
			return srv.Shutdown(ctx)
		},
	})
}

// URLFile, in data_dir, holds the address a server without public_url
// listens at, while it runs: the product's commands (an invitation) then
// mail links to it rather than to the default addr.
const URLFile = "server.url"

func recordURL(cfg config.Config, url string) error {
	if cfg.PublicURL != "" || cfg.DataDir == "" {
		return nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(cfg.DataDir, URLFile), []byte(url+"\n"), 0o600)
}

func forgetURL(cfg config.Config, url string) {
	if cfg.PublicURL != "" || cfg.DataDir == "" {
		return
	}
	path := filepath.Join(cfg.DataDir, URLFile)
	if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) == url {
		_ = os.Remove(path)
	}
}

// RecordedURL is the address a running server of this data_dir listens at
// (URLFile), "" when none is kept or public_url is set.
func RecordedURL(cfg config.Config) string {
	if cfg.PublicURL != "" || cfg.DataDir == "" {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(cfg.DataDir, URLFile))
	if err != nil {
		return ""
	}
	u := strings.TrimSpace(string(b))
	if _, ok := config.Origin(u); !ok {
		return ""
	}
	return u
}

// Registry builds the product's registry without starting anything:
// nothing connects until start, so this needs no database or network.
func Registry(p Product, cfg config.Config) (*registry.Registry, error) {
	if cfg.DatabaseURL == "" {
		// The embedded database is never opened here; keep its folder from
		// appearing wherever the caller runs.
		dir, err := os.MkdirTemp("", "cairn-registry-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		cfg.DataDir = dir
	}
	var reg *registry.Registry
	fxApp := fx.New(Options(p, cfg, slog.New(slog.DiscardHandler)), fx.NopLogger, fx.Populate(&reg))
	if err := fxApp.Err(); err != nil {
		return nil, err
	}
	return reg, nil
}

// Migrate applies the product's migrations and the job queue's own to the
// configured database, and reports how many product migrations ran.
func Migrate(ctx context.Context, p Product, cfg config.Config) (int, storage.Engine, error) {
	ms, err := p.Migrations()
	if err != nil {
		return 0, "", err
	}
	db, engine, err := storage.Open(cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return 0, "", err
	}
	defer db.Close()
	n, err := storage.Migrate(ctx, db, ms)
	if err != nil {
		return 0, engine, err
	}
	q, err := jobs.Open(db, engine, storage.SQLitePath(cfg.DatabaseURL, cfg.DataDir))
	if err != nil {
		return n, engine, err
	}
	defer q.Stop(ctx)
	return n, engine, q.Migrate(ctx)
}

// TokenIssuer mints a bearer token for a person, creating them when absent:
// what tests (app/apptest, app/conformance) and development start-ups use to
// act as a user. A product provides one beside its guards.Authenticator.
type TokenIssuer interface {
	IssueToken(ctx context.Context, email string, scopes []registry.Scope) (string, error)
}
