package app

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/tools"
)

// The Protected Resource Metadata documents (RFC 9728 §3): one for the
// server as a whole (the HTTP API) and the path-specific one for /mcp,
// which an MCP client derives from the endpoint's URL.
const (
	MetadataPath    = "/.well-known/oauth-protected-resource"
	MCPMetadataPath = MetadataPath + "/mcp"
)

// resource describes this server as an OAuth protected resource: where it
// answers, which authorization servers issue its tokens, and which scopes
// its operations need.
type resource struct {
	url        func() string   // the server's own URL, with its real port once listening
	names      func() []string // every origin the server is known by, url() first (Server.Names)
	ownIssuer  bool            // the product serves its authorization server at url()
	scopes     []registry.Scope
	toolScopes []registry.Scope
	tools      map[string]*registry.Operation
}

func newResource(reg *registry.Registry, url func() string, ownIssuer bool) *resource {
	r := &resource{url: url, ownIssuer: ownIssuer, scopes: reg.Scopes(), tools: map[string]*registry.Operation{}}
	for _, op := range reg.Operations() {
		if !op.Tool.IsTool() {
			continue
		}
		r.tools[op.Tool.Name] = op
		if op.Scope != registry.Public && !slices.Contains(r.toolScopes, op.Scope) {
			r.toolScopes = append(r.toolScopes, op.Scope)
		}
	}
	slices.Sort(r.toolScopes)
	if ownIssuer {
		// The product's own authorization server grants the scopes of the
		// MCP tools only (the account's is for the person in the browser):
		// the HTTP API's document offers no scope a client cannot get.
		r.scopes = r.toolScopes
	}
	return r
}

// mcpURL is the MCP endpoint's resource identifier, the audience of the
// tokens it accepts.
func (r *resource) mcpURL() string { return r.url() + "/mcp" }

// nameFor is the server's name a request used, when it is one of Names
// (its host the request's Host), else url(): the resource identifier a
// client derived from the address it was given must be the one the
// metadata states (RFC 9728 §3.3).
func (r *resource) nameFor(req *http.Request) string {
	if r.names == nil {
		return r.url()
	}
	for _, n := range r.names() {
		if u, err := url.Parse(n); err == nil && strings.EqualFold(u.Host, req.Host) {
			return n
		}
	}
	return r.url()
}

// audience reports whether a token bound to resource is good at /mcp: its
// URL under any of the server's names.
func (r *resource) audience(resource string) bool {
	if resource == "" {
		return true
	}
	if r.names == nil {
		return resource == r.mcpURL()
	}
	for _, n := range r.names() {
		if resource == n+"/mcp" {
			return true
		}
	}
	return false
}

func (r *resource) metadata(resourceURL string, scopes []registry.Scope) *oauthex.ProtectedResourceMetadata {
	m := &oauthex.ProtectedResourceMetadata{
		Resource:               resourceURL,
		BearerMethodsSupported: []string{"header"},
	}
	for _, s := range scopes {
		m.ScopesSupported = append(m.ScopesSupported, string(s))
	}
	if r.ownIssuer {
		m.AuthorizationServers = []string{r.url()}
	}
	return m
}

// mount serves both metadata documents. They are infrastructure, public,
// and outside the registry, like the health checks.
func (r *resource) mount(mux *http.ServeMux) {
	serve := func(build func(*http.Request) *oauthex.ProtectedResourceMetadata) http.HandlerFunc {
		return func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "public, max-age=300")
			w.Header().Set("Access-Control-Allow-Origin", "*") // browser-based clients discover it too
			w.Header().Add("Vary", "Host")                     // the resource is named as the client named the server
			_ = json.NewEncoder(w).Encode(build(req))
		}
	}
	mux.HandleFunc("GET "+MetadataPath, serve(func(req *http.Request) *oauthex.ProtectedResourceMetadata {
		return r.metadata(r.nameFor(req), r.scopes)
	}))
	mux.HandleFunc("GET "+MCPMetadataPath, serve(func(req *http.Request) *oauthex.ProtectedResourceMetadata {
		return r.metadata(r.nameFor(req)+"/mcp", r.toolScopes)
	}))
}

// gate refuses an MCP request before any session exists, with the problem
// the HTTP API gives and a bearer challenge naming the /mcp metadata:
//   - 401 for a missing, unknown, revoked or expired token, or one issued
//     for another resource (RFC 8707: a token is only good where it was
//     meant to be used);
//   - 403 insufficient_scope for a tools/call of a tool whose scope the
//     token lacks, so that a client can ask the person for it (step-up).
//
// The guard chain authenticates every tool call again, by the same store.
func (r *resource) gate(tokens guards.Authenticator, next http.Handler) http.Handler {
	auth := guards.Authenticate{Tokens: tokens}
	inner := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		sent := registry.BearerCredential(req.Header.Get("Authorization"))
		p, err := auth.Principal(req.Context(), sent)
		if err == nil && !r.audience(p.Resource) {
			err = registry.Fail(registry.KindUnauthenticated, "the bearer token was issued for another resource; ask for one for "+r.nameFor(req)+"/mcp")
		}
		if err != nil {
			operations.WriteChallenge(w, req, err, r.toolScopes...)
			return
		}
		for _, op := range r.calledTools(req) {
			if err := (guards.Scope{}).Refusal(p, op); err != nil {
				operations.WriteProblem(w, req, err)
				return
			}
		}
		next.ServeHTTP(w, req)
	})
	// The challenge names the metadata under the name the client used.
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		base := r.nameFor(req)
		operations.WithResourceMetadata(func() string { return base + MCPMetadataPath }, inner).ServeHTTP(w, req)
	})
}

// calledTools are the operations a POST's tools/call messages name (one,
// or each of a batch). The body (already bounded by the endpoint's limit)
// is put back for the MCP handler; anything unreadable is left for it to
// refuse.
func (r *resource) calledTools(req *http.Request) []*registry.Operation {
	if req.Method != http.MethodPost || req.Body == nil {
		return nil
	}
	body, err := io.ReadAll(req.Body)
	req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), req.Body))
	if err != nil {
		return nil
	}
	var ops []*registry.Operation
	for _, name := range tools.Called(body) {
		if op := r.tools[name]; op != nil {
			ops = append(ops, op)
		}
	}
	return ops
}
