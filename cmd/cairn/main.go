// Command cairn serves the Cairn API over HTTP and MCP, applies migrations,
// creates access tokens and prints the guard matrix.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/guardmatrix"
	"cairn.dev/cairn/door"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/planner"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

const usage = `usage: cairn [--config FILE] COMMAND

commands:
  serve                          run the server (HTTP API, /mcp, /docs)
  migrate                        apply pending database migrations
  token create --email E --scope S [--scope S] [--name N] [--ttl 720h]
                                 create a personal access token (printed once)
  token list --email E           list a user's tokens (id, name, scopes, created, expiry, revoked)
  token revoke --email E ID|NAME revoke a user's token by its id, or every active one of that name
  users invite --email E [--locale fr|en]
                                 create a user (or find them) and mail a sign-in link
  mail list | mail read [ID]     the outbox, where mail goes without smtp_url (read: the latest)
  access-requests list [--all]   early-access requests (verified ones unless --all)
  pois import FILE [--format xml|pbf]
                                 load accommodations from OpenStreetMap data (.osm, .osm.pbf)
  guards [--format text|markdown|json]
                                 print the operation × guard matrix

configuration: built-in defaults, then cairn.yaml, then CAIRN_* variables.
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cairn:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cairn", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	cfgPath := fs.String("config", "", "configuration file (default ./cairn.yaml when present)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := config.Load(*cfgPath, os.Environ(), planner.Keys()...)
	if err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		fs.Usage()
		return errors.New("no command given")
	}
	switch rest[0] {
	case "serve":
		return serve(cfg, stdout, stderr)
	case "migrate":
		return migrate(cfg, stdout)
	case "token":
		return token(cfg, rest[1:], stdout, stderr)
	case "guards":
		return printGuards(cfg, rest[1:], stdout, stderr)
	case "pois":
		return importPOIs(cfg, rest[1:], stdout, stderr)
	case "users":
		return users(cfg, rest[1:], stdout, stderr)
	case "mail":
		return readMail(cfg, rest[1:], stdout)
	case "access-requests":
		return accessRequests(cfg, rest[1:], stdout, stderr)
	default:
		fs.Usage()
		return fmt.Errorf("unknown command %q", rest[0])
	}
}

func serve(cfg config.Config, stdout, stderr io.Writer) error {
	log := app.NewLogger(cfg, stderr)
	settings, err := planner.Decode(cfg)
	if err != nil {
		return err
	}
	var store *accounts.Store
	return app.Serve(planner.Product(), cfg, log, func(ctx context.Context, srv *app.Server) error {
		if !cfg.Dev {
			return nil
		}
		tok, err := door.DevToken(ctx, store, srv.Registry, settings.DevEmail)
		if err != nil {
			return fmt.Errorf("development user: %w", err)
		}
		planner.PrintWelcome(stdout, srv.URL(), settings.DevEmail, tok)
		planner.PrintOutsideData(stdout, settings)
		return nil
	}, &store)
}

func migrate(cfg config.Config, stdout io.Writer) error {
	n, engine, err := app.Migrate(context.Background(), planner.Product(), cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d migration(s) applied; job queue up to date\n", engine, n)
	return nil
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

const tokenUsage = "usage: cairn token create --email E --scope S [--scope S] | token list --email E | token revoke --email E ID|NAME"

func token(cfg config.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(tokenUsage)
	}
	switch args[0] {
	case "create":
		return createToken(cfg, args[1:], stdout, stderr)
	case "list":
		return listTokens(cfg, args[1:], stdout, stderr)
	case "revoke":
		return revokeToken(cfg, args[1:], stdout, stderr)
	}
	return errors.New(tokenUsage)
}

// accountStore opens the configured database (a SQLite file migrated
// first, as serve would) and the account store over it.
func accountStore(ctx context.Context, cfg config.Config) (*accounts.Store, func(), error) {
	reg, err := app.Registry(planner.Product(), cfg)
	if err != nil {
		return nil, nil, err
	}
	if storage.SQLitePath(cfg.DatabaseURL, cfg.DataDir) != "" {
		if _, _, err := app.Migrate(ctx, planner.Product(), cfg); err != nil {
			return nil, nil, err
		}
	}
	db, _, err := storage.Open(cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return nil, nil, err
	}
	return accounts.NewStore(db, reg), func() { _ = db.Close() }, nil
}

func listTokens(cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "owner of the tokens")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" || fs.NArg() > 0 {
		return errors.New("usage: cairn token list --email E")
	}
	ctx := context.Background()
	store, done, err := accountStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	toks, err := store.ListTokens(ctx, *email)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tSCOPES\tCREATED\tEXPIRES\tREVOKED")
	stamp := func(t *time.Time, none string) string {
		if t == nil {
			return none
		}
		return t.UTC().Format(time.RFC3339)
	}
	for _, t := range toks {
		scs := make([]string, len(t.Scopes))
		for i, sc := range t.Scopes {
			scs[i] = string(sc)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, strings.Join(scs, ","),
			t.CreatedAt.UTC().Format(time.RFC3339), stamp(t.ExpiresAt, "never"), stamp(t.RevokedAt, "-"))
	}
	return w.Flush()
}

func revokeToken(cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token revoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "owner of the token")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" || fs.NArg() != 1 {
		return errors.New("usage: cairn token revoke --email E ID|NAME")
	}
	ctx := context.Background()
	store, done, err := accountStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	n, err := store.RevokeToken(ctx, *email, fs.Arg(0))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "revoked %d token(s); other replicas stop accepting them within their token cache's TTL\n", n)
	return nil
}

func createToken(cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "owner of the token (created when absent)")
	name := fs.String("name", "cli", "a name to recognise the token by")
	ttl := fs.Duration("ttl", 0, "lifetime, e.g. 720h (default: no expiry)")
	var scs multi
	fs.Var(&scs, "scope", "scope to grant (repeatable): trips:read, trips:write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" {
		return errors.New("--email is required")
	}
	ctx := context.Background()
	store, done, err := accountStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	u, _, err := store.EnsureUser(ctx, *email)
	if err != nil {
		return err
	}
	var granted []registry.Scope
	for _, s := range scs {
		granted = append(granted, registry.Scope(s))
	}
	secret, err := store.CreateToken(ctx, u.ID, *name, granted, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, secret)
	return nil
}

func printGuards(cfg config.Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("guards", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "text, markdown or json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	reg, err := app.Registry(planner.Product(), cfg)
	if err != nil {
		return err
	}
	return guardmatrix.Write(stdout, reg, *format)
}

// importMemory is the soft memory limit of an import (GOMEMLIMIT overrides it).
const importMemory = 200 << 20

func importPOIs(cfg config.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) < 2 || args[0] != "import" {
		return errors.New("usage: cairn pois import FILE [--format xml|pbf]")
	}
	fs := flag.NewFlagSet("pois import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "", "xml or pbf (default: from the file name)")
	if err := fs.Parse(args[2:]); err != nil {
		return err
	}
	var override poi.Format
	if *format != "" {
		f, err := poi.ParseFormat(*format)
		if err != nil {
			return err
		}
		override = f
	}
	ctx := context.Background()
	if os.Getenv("GOMEMLIMIT") == "" {
		// An extract streams through in bounded memory; a soft limit makes
		// the collector keep it there rather than let the heap double.
		debug.SetMemoryLimit(importMemory)
	}
	if _, _, err := app.Migrate(ctx, planner.Product(), cfg); err != nil {
		return err
	}
	db, _, err := storage.Open(cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := poi.ImportFile(ctx, poi.NewStore(db), args[1], override)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "imported %d places (%d nodes and %d ways: %v), %d roads and %d ferry routes in %d chunks, covering %d tiles of 0.1°\n",
		st.Nodes+st.Ways, st.Nodes, st.Ways, st.ByType, st.Roads, st.Ferries, st.WayChunks, st.CoverageTiles)
	return nil
}
