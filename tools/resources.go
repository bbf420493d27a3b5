package tools

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/registry"
)

// mountResources adds the operations the registry serves as resources: a
// fixed URI as a resource, one with variables as a template. Every read
// runs the guard chain on a neutral call, its variables taken from the
// URI, as a tool call does from its arguments.
func (f *Face) mountResources(reg *registry.Registry) {
	f.resources = map[string]*registry.Operation{}
	for _, op := range reg.Resources() {
		s := op.Resource
		f.resources[s.URI] = op
		h := f.readHandler(op)
		if !s.IsTemplate() {
			f.server.AddResource(&mcp.Resource{URI: s.URI, Name: s.Name, Title: s.Title,
				Description: s.Description, MIMEType: s.MIMEType}, h)
			continue
		}
		f.server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: s.URI, Name: s.Name, Title: s.Title,
			Description: s.Description, MIMEType: s.MIMEType}, h)
	}
}

// keepReadable narrows a resources/list or resources/templates/list answer
// to what the caller's token may read, as tools/list is narrowed to what it
// may call; a view and anything else not served by an operation stay.
func (f *Face) keepReadable(ctx context.Context, req mcp.Request, res mcp.Result) mcp.Result {
	p := f.principal(ctx, req)
	readable := func(uri string) bool {
		op, ok := f.resources[uri]
		return !ok || f.callable(p, op)
	}
	switch r := res.(type) {
	case *mcp.ListResourcesResult:
		out := *r
		out.Resources = make([]*mcp.Resource, 0, len(r.Resources))
		for _, x := range r.Resources {
			if readable(x.URI) {
				out.Resources = append(out.Resources, x)
			}
		}
		return &out
	case *mcp.ListResourceTemplatesResult:
		out := *r
		out.ResourceTemplates = make([]*mcp.ResourceTemplate, 0, len(r.ResourceTemplates))
		for _, x := range r.ResourceTemplates {
			if readable(x.URITemplate) {
				out.ResourceTemplates = append(out.ResourceTemplates, x)
			}
		}
		return &out
	}
	return res
}

func (f *Face) readHandler(op *registry.Operation) mcp.ResourceHandler {
	match := templateMatcher(op.Resource.URI)
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		if req.Params == nil {
			return nil, mcp.ResourceNotFoundError("")
		}
		uri := req.Params.URI
		vars, ok := match(uri)
		if !ok {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		c := &registry.Call{Face: registry.FaceMCP, Now: f.now(), Vars: vars, Op: op, Args: map[string]json.RawMessage{}}
		header := ""
		if req.Extra != nil && req.Extra.Header != nil {
			c.Credential = registry.BearerCredential(req.Extra.Header.Get("Authorization"))
			c.ClientAddr = req.Extra.Header.Get(registry.HeaderClientAddress)
			if id := req.Extra.Header.Get(registry.HeaderRequestID); id != "" {
				c.RequestID = id
				ctx = registry.WithRequestID(ctx, id)
			}
			header = req.Extra.Header.Get("Accept-Language")
		}
		c.Locale = f.locales.Negotiate(header)
		if err := f.chain.Run(ctx, c); err != nil {
			return nil, f.readError(ctx, c, uri, err)
		}
		contents, err := resourceContents(uri, op.Resource.MIMEType, c.Output)
		if err != nil {
			return nil, f.readError(ctx, c, uri, registry.Internal(err))
		}
		return &mcp.ReadResourceResult{Contents: contents}, nil
	}
}

// readError answers a refused or failed read as a JSON-RPC error: not
// found as the protocol's resource-not-found (an unknown and someone
// else's id alike), a failure as an internal error saying nothing of its
// cause, and any other refusal as invalid params carrying the problem the
// HTTP face answers.
func (f *Face) readError(ctx context.Context, c *registry.Call, uri string, err error) error {
	e := registry.AsError(err)
	switch e.Kind {
	case registry.KindNotFound:
		return mcp.ResourceNotFoundError(uri)
	case registry.KindInternal:
		f.log.ErrorContext(ctx, "resource read failed", "op", c.Op.ID, "face", c.Face, "err", err)
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the resource could not be read"}
	}
	p := f.locales.Problem(e, c.Locale)
	p.RequestID = c.RequestID
	b, _ := json.Marshal(p)
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: p.Title + ": " + p.Detail, Data: b}
}

// resourceContents is what a read answers: the output's own blocks (a
// text, or bytes as a blob), else its JSON. A block names its own URI and
// type, or takes the read's.
func resourceContents(uri, mimeType string, out any) ([]*mcp.ResourceContents, error) {
	own, ok := out.(registry.Contents)
	if !ok {
		b, err := registry.Encode(out)
		if err != nil {
			return nil, err
		}
		return []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
	}
	bs := own.Contents()
	contents := make([]*mcp.ResourceContents, len(bs))
	for i, b := range bs {
		rc := &mcp.ResourceContents{URI: b.URI, MIMEType: b.MIMEType}
		if rc.URI == "" {
			rc.URI = uri
		}
		if rc.MIMEType == "" {
			rc.MIMEType = mimeType
		}
		if b.Data != nil {
			rc.Blob = b.Data
		} else {
			rc.Text = b.Text
		}
		contents[i] = rc
	}
	return contents, nil
}

// templateMatcher matches a read's URI against a declared URI: its
// variables (registry.ResourceSpec: level 1 only) each take one segment,
// unescaped. A fixed URI matches itself alone.
func templateMatcher(template string) func(uri string) (map[string]string, bool) {
	var names []string
	var pattern strings.Builder
	pattern.WriteString("^")
	rest := template
	for {
		i := strings.IndexByte(rest, '{')
		j := strings.IndexByte(rest, '}')
		if i < 0 || j < i {
			pattern.WriteString(regexp.QuoteMeta(rest))
			break
		}
		pattern.WriteString(regexp.QuoteMeta(rest[:i]))
		pattern.WriteString(`([^/?#]+)`)
		names = append(names, rest[i+1:j])
		rest = rest[j+1:]
	}
	pattern.WriteString("$")
	re := regexp.MustCompile(pattern.String())
	return func(uri string) (map[string]string, bool) {
		m := re.FindStringSubmatch(uri)
		if m == nil {
			return nil, false
		}
		vars := make(map[string]string, len(names))
		for k, name := range names {
			v, err := url.PathUnescape(m[k+1])
			if err != nil {
				return nil, false
			}
			vars[name] = v
		}
		return vars, true
	}
}
