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
		Instructions: instructions, Logger: log, Capabilities: caps,
		SetCacheable: cacheHints, CompletionHandler: noCompletions,
	})
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
