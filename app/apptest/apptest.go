// Package apptest starts a product's whole application in-process on a
// random port, on SQLite by default or on a PostgreSQL database of the
// test's own, and drives it over HTTP and over MCP with the official client.
// The product provides an app.TokenIssuer, so a test can act as any user.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/uptrace/bun"
	"go.uber.org/fx"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/jobs"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage/storagetest"
)

// App is a running application.
type App struct {
	URL     string
	Server  *app.Server
	DB      *bun.DB
	Config  config.Config
	Product app.Product
	Tokens  app.TokenIssuer
	Auth    guards.Authenticator // who a token is, as the authenticate guard resolves it
	Queue   *jobs.Queue          // the job queue (Hold keeps background work from running)

	causes *causes      // what was logged as errors, by request id
	stop   func() error // stops the application, once

	legacyMu sync.Mutex
	legacy   map[string]*mcp.ClientSession // LegacyMCP's sessions, by token
}

// LegacyMCP is a session at MCP 2025-11-25 for token, kept for the app's
// life. A tool served only as a task (registry.ToolSpec.TaskRequired) is
// called there by ViaMCP: at that revision it answers at once, as any
// dispatching tool, so the kit compares its answer with the HTTP twin's.
func (a *App) LegacyMCP(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	a.legacyMu.Lock()
	defer a.legacyMu.Unlock()
	if s, ok := a.legacy[token]; ok {
		return s
	}
	s, _ := ConnectMCPAt(t, a.URL+"/mcp", token, "2025-11-25")
	if a.legacy == nil {
		a.legacy = map[string]*mcp.ClientSession{}
	}
	a.legacy[token] = s
	return s
}

// Stop stops the application now, as a deploy or a crash of one replica
// would: it stops listening, then finishes its in-flight requests.
func (a *App) Stop(t testing.TB) {
	t.Helper()
	if err := a.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

// Option changes the configuration before start.
type Option func(t testing.TB, c *config.Config)

// Postgres runs the application on a fresh PostgreSQL database, migrated
// before start as the migrate command would.
func Postgres(t testing.TB, c *config.Config) {
	c.DatabaseURL = storagetest.PostgresURL(t)
}

// Database runs the application on the database at url, which the test
// created (storagetest.PostgresURL) and another instance may share: two
// applications on one database are two replicas. It is migrated before
// start, which a second instance finds already done.
func Database(url string) Option {
	return func(_ testing.TB, c *config.Config) { c.DatabaseURL = url }
}

// New starts the product's application and stops it when the test ends.
// It logs nowhere, or warnings to the test's log under -v.
func New(t testing.TB, product app.Product, opts ...Option) *App {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return NewLogged(t, product, log, opts...)
}

// NewLogged is New logging to log, for a test that reads what the server
// logs.
func NewLogged(t testing.TB, product app.Product, log *slog.Logger, opts ...Option) *App {
	t.Helper()
	cfg, err := config.Load("", nil, product.Keys()...)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.LogLevel = "error"
	cfg.JobPollInterval = 50 * time.Millisecond
	// The test client stands for a reverse proxy: a test names the caller's
	// address with X-Forwarded-For, as the conformance kit does for
	// per-address limits.
	cfg.TrustedProxies = "127.0.0.1,::1"
	for _, o := range opts {
		o(t, &cfg)
	}
	if strings.HasPrefix(cfg.DatabaseURL, "postgres") {
		if _, _, err := app.Migrate(context.Background(), product, cfg); err != nil {
			t.Fatal(err)
		}
	}
	a := &App{Config: cfg, Product: product, causes: &causes{byID: map[string][]string{}}}
	log = slog.New(recording{next: log.Handler(), causes: a.causes})
	fxApp := fx.New(app.Options(product, cfg, log), fx.NopLogger, fx.Populate(&a.Server, &a.DB, &a.Tokens, &a.Auth, &a.Queue))
	if err := fxApp.Err(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := fxApp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	a.stop = func() (err error) {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err = fxApp.Stop(ctx)
		})
		return err
	}
	t.Cleanup(func() { a.Stop(t) })
	a.URL = a.Server.URL()
	return a
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// Token creates a user (when absent) and a token carrying scopes; with no
// scope named, every declared scope.
func (a *App) Token(t testing.TB, email string, scs ...registry.Scope) string {
	t.Helper()
	if len(scs) == 0 {
		scs = a.Server.Registry.Scopes()
	}
	tok, err := a.Tokens.IssueToken(context.Background(), email, scs)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Response is an HTTP answer, read whole.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a map.
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object (%d): %s", r.Status, r.Body)
	}
	return m
}

// Do sends an HTTP request, following redirects. body may be nil, a string (sent as is) or any
// value (sent as JSON). headers alternate names and values.
func (a *App) Do(t testing.TB, method, path, token string, body any, headers ...string) *Response {
	t.Helper()
	return a.send(t, http.DefaultClient, method, path, token, body, headers...)
}

// stayingClient answers a redirect as it is, as a face answered it.
var stayingClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// send sends an HTTP request through client.
func (a *App) send(t testing.TB, client *http.Client, method, path, token string, body any, headers ...string) *Response {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	// An explicit Content-Type among the headers wins (multipart uploads).
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		a.namesNoTool(t, method+" "+path, raw)
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Body: raw}
}

// namesNoTool fails t when an HTTP problem body names one of the
// registry's MCP tools: each face words what comes next in its own
// vocabulary, so every HTTP refusal a test meets is checked for it.
func (a *App) namesNoTool(t testing.TB, call string, body []byte) {
	t.Helper()
	if a.Server == nil || a.Server.Registry == nil {
		return
	}
	for _, op := range a.Server.Registry.Operations() {
		if op.Tool.IsTool() && bytes.Contains(body, []byte(op.Tool.Name)) {
			t.Errorf("%s: the HTTP problem names the MCP tool %s: %s", call, op.Tool.Name, body)
		}
	}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// MCP connects the official go-sdk client to /mcp with token.
func (a *App) MCP(t testing.TB, token string, opts ...func(*mcp.ClientOptions)) *mcp.ClientSession {
	t.Helper()
	s, _ := ConnectMCP(t, a.URL+"/mcp", token, opts...)
	return s
}

// ToolResult is a tool call's answer, decoded.
type ToolResult struct {
	IsError    bool
	Structured map[string]any
	Text       string
}

// Call calls a tool and decodes its structured content.
func Call(t testing.TB, s *mcp.ClientSession, tool string, args any) *ToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	out := &ToolResult{IsError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out.Text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &out.Structured); err != nil {
			t.Fatalf("structured content of %s is not an object: %s", tool, raw)
		}
	}
	return out
}

// Redis shares rate limits through a real Redis, under a key prefix of the
// test's own.
func Redis(t testing.TB, c *config.Config) {
	_, prefix := storagetest.Redis(t)
	c.RedisURL = storagetest.RedisURL()
	c.RedisPrefix = prefix
}

// RedisThrough shares rate limits and progress through the relay o, which
// the test can cut to play a Redis outage.
func RedisThrough(o *storagetest.RedisOutage) Option {
	return func(_ testing.TB, c *config.Config) {
		c.RedisURL = o.URL
		c.RedisPrefix = o.Prefix
	}
}
