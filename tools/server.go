package tools

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Cache hints of list results (2026-07-28: every cacheable result says how
// long a client may keep it, and whether a shared cache may).
const (
	// DiscoverTTLMs: server/discover is the same for every caller.
	DiscoverTTLMs = 5 * 60 * 1000
	// ToolsTTLMs: tools/list lists what the caller's token may call, so it
	// is private to that caller (no shared cache may serve it to another
	// token) and kept a minute.
	ToolsTTLMs = 60 * 1000
	// ListTTLMs: the other lists hold the product's declarations, the same
	// for every caller.
	ListTTLMs = 60 * 1000
)

// NewServer returns the MCP server a Face serves: the product's identity
// and instructions, the capabilities its declarations give (tools, and the
// tasks extension), and the cache hints of both revisions. Logging, roots
// and sampling (deprecated in 2026-07-28) are not offered.
func NewServer(impl *mcp.Implementation, instructions string, log *slog.Logger) *mcp.Server {
	// Prompts and resources are served (the lists answer, empty when the
	// product declares none), so they are declared: a capability says what
	// the server answers, not how much it has.
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Prompts: &mcp.PromptCapabilities{},
		Resources: &mcp.ResourceCapabilities{}, Completions: &mcp.CompletionCapabilities{}}
	caps.AddExtension(TasksExtension, nil)
	return mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: instructions, Logger: warnings(log), Capabilities: caps,
		SetCacheable: cacheHints, CompletionHandler: noCompletions,
	})
}

// warnings is log for the SDK: its warnings and errors, without the lines
// it writes at Info for every session, which a stateless endpoint opens
// for every request (three lines a call).
func warnings(log *slog.Logger) *slog.Logger {
	if log == nil {
		return nil
	}
	return slog.New(atLeast{Handler: log.Handler(), min: slog.LevelWarn})
}

// atLeast is a handler that drops the records below min.
type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(as []slog.Attr) slog.Handler {
	return atLeast{Handler: h.Handler.WithAttrs(as), min: h.min}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{Handler: h.Handler.WithGroup(name), min: h.min}
}

// noCompletions answers completion/complete: no argument of this server
// completes, so there is never a suggestion.
func noCompletions(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
}

// cacheHints sets ttlMs and cacheScope: private for what depends on the
// caller (tools/list, resources/read), public for the rest.
func cacheHints(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	switch req.(type) {
	case *mcp.ServerRequest[*mcp.DiscoverParams]:
		c.TTLMs, c.CacheScope = DiscoverTTLMs, "public"
	case *mcp.ListToolsRequest:
		c.TTLMs, c.CacheScope = ToolsTTLMs, "private"
	case *mcp.ReadResourceRequest:
		c.CacheScope = "private"
	default:
		c.TTLMs, c.CacheScope = ListTTLMs, "public"
	}
}
