package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/registry"
)

// The MCP Apps extension: a tool names an HTML view (a ui:// resource) that
// a host shows beside its result.
const (
	// UIExtension is the extension's identifier, among the capabilities'
	// extensions.
	UIExtension = "io.modelcontextprotocol/ui"
	// ViewMIMEType is the type of a view's resource.
	ViewMIMEType = "text/html;profile=mcp-app"
	// viewScheme begins the URI of every view.
	viewScheme = "ui://"
)

// seesViews reports whether the caller of a request is shown the views:
// the tools' links, the ui:// resources and the extension among the
// server's capabilities. A client that states its capabilities sees them
// when it declares the extension (with the view's type among its types,
// when it lists types). A request that carries no capabilities (a
// 2025-11-25 request after initialize: the endpoint keeps no session to
// remember them) cannot say, so it is shown the links: a host that does not
// speak the extension passes over a tool's _meta.
func seesViews(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return true
	}
	return declaresViews(caps)
}

// declaresViews reports whether the capabilities declare the extension.
func declaresViews(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	ext, ok := caps.Extensions[UIExtension]
	if !ok {
		return false
	}
	var settings struct {
		MIMETypes []string `json:"mimeTypes"`
	}
	if raw, err := json.Marshal(ext); err == nil {
		_ = json.Unmarshal(raw, &settings)
	}
	if settings.MIMETypes == nil {
		return true
	}
	for _, t := range settings.MIMETypes {
		if strings.EqualFold(strings.ReplaceAll(t, " ", ""), ViewMIMEType) {
			return true
		}
	}
	return false
}

// requestCapabilities are the client's capabilities as a request carries
// them: in an initialize's parameters, else in the request's _meta
// (2026-07-28). Nil when the request carries none.
func requestCapabilities(req mcp.Request) *mcp.ClientCapabilities {
	switch r := req.(type) {
	case *mcp.ServerRequest[*mcp.InitializeParams]:
		if r.Params != nil {
			return r.Params.Capabilities
		}
		return nil
	case interface {
		ClientCapabilities() *mcp.ClientCapabilities
	}:
		// A request without params (a ping) holds a typed nil.
		p := req.GetParams()
		if p == nil || reflect.ValueOf(p).IsNil() {
			return nil
		}
		if _, ok := p.GetMeta()[mcp.MetaKeyClientCapabilities]; !ok {
			return nil
		}
		return r.ClientCapabilities()
	}
	return nil
}

// viewMeta is a view's _meta.ui, on its resource and on what resources/read
// answers: the origins it may reach (none, unless declared) and the
// permissions it asks for.
func viewMeta(v *registry.View) mcp.Meta {
	perms := map[string]any{}
	for _, p := range v.Permissions {
		perms[p] = map[string]any{}
	}
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return mcp.Meta{"ui": map[string]any{
		"csp": map[string]any{
			"connectDomains":  nonNil(v.ConnectDomains),
			"resourceDomains": nonNil(v.ResourceDomains),
		},
		"permissions":   perms,
		"prefersBorder": v.Border,
	}}
}

// mountViews adds the registry's views as ui:// resources and the
// middleware showing them only to the callers that see views.
func (f *Face) mountViews(reg *registry.Registry) {
	views := reg.Views()
	if len(views) == 0 {
		return
	}
	for _, v := range views {
		res := &mcp.Resource{URI: v.URI, Name: v.Name, Description: v.Description, MIMEType: ViewMIMEType,
			Size: int64(len(v.HTML)), Meta: viewMeta(v)}
		body := string(v.HTML)
		meta := viewMeta(v)
		f.server.AddResource(res, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			if req.Params == nil {
				return nil, mcp.ResourceNotFoundError("")
			}
			if req.Params.URI != res.URI {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
				{URI: res.URI, MIMEType: ViewMIMEType, Text: body, Meta: meta},
			}}, nil
		})
	}
	f.server.AddReceivingMiddleware(f.viewsMiddleware)
}

// viewsMiddleware shows the views to the callers that see them: it adds
// the extension to the capabilities answered to a client that declared it
// (initialize, server/discover), and takes the links off tools/list and
// the views off resources/list for a client that states capabilities
// without it, so that such a client gets exactly the lists it got before
// any view was declared.
func (f *Face) viewsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		caps := requestCapabilities(req)
		switch r := res.(type) {
		case *mcp.InitializeResult:
			if declaresViews(caps) {
				out := *r
				out.Capabilities = withViews(r.Capabilities)
				return &out, nil
			}
		case *mcp.DiscoverResult:
			if declaresViews(caps) {
				out := *r
				out.Capabilities = withViews(r.Capabilities)
				return &out, nil
			}
		case *mcp.ListToolsResult:
			if !seesViews(caps) {
				out := *r
				out.Tools = make([]*mcp.Tool, len(r.Tools))
				for i, t := range r.Tools {
					out.Tools[i] = unlinked(t)
				}
				return &out, nil
			}
		case *mcp.ListResourcesResult:
			if !seesViews(caps) {
				out := *r
				out.Resources = make([]*mcp.Resource, 0, len(r.Resources))
				for _, x := range r.Resources {
					if !strings.HasPrefix(x.URI, viewScheme) {
						out.Resources = append(out.Resources, x)
					}
				}
				return &out, nil
			}
		}
		return res, nil
	}
}

// withViews is a copy of the server's capabilities naming the extension.
func withViews(c *mcp.ServerCapabilities) *mcp.ServerCapabilities {
	if c == nil {
		c = &mcp.ServerCapabilities{}
	}
	out := *c
	ext := make(map[string]any, len(c.Extensions)+1)
	for k, v := range c.Extensions {
		ext[k] = v
	}
	ext[UIExtension] = map[string]any{"mimeTypes": []string{ViewMIMEType}}
	out.Extensions = ext
	return &out
}

// unlinked is the tool without its link to a view: a copy, since the
// server keeps the listed tools.
func unlinked(t *mcp.Tool) *mcp.Tool {
	if _, ok := t.Meta["ui"]; !ok {
		return t
	}
	c := *t
	c.Meta = nil
	for k, v := range t.Meta {
		if k == "ui" {
			continue
		}
		if c.Meta == nil {
			c.Meta = mcp.Meta{}
		}
		c.Meta[k] = v
	}
	return &c
}

// link is the _meta of a tool showing its results in view v.
func link(v *registry.View) mcp.Meta {
	return mcp.Meta{"ui": map[string]any{"resourceUri": v.URI}}
}
