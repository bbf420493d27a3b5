package operations

import (
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"cairn.dev/cairn/registry"
)

// suffixGroup is the operations one router pattern serves: the route at
// the pattern itself (nil when none is declared) and the suffixed routes
// beside it, by extension ("/trips/{id}" with "/trips/{id}.gpx" and
// "/trips/{id}.fit").
type suffixGroup struct {
	method, path string
	variable     string // the last variable, whose value carries the extension
	base         *registry.Operation
	baseHop      *huma.Operation
	byExt        map[string]*registry.Operation
}

// mount adds every operation to the OpenAPI document under its declared
// path, and to the router: directly, or through the one handler of its
// suffix group (registry.Route.Suffix), since a router pattern matches
// whole segments.
func (f *Face) mount(ops []*registry.Operation) {
	groups := map[string]*suffixGroup{}
	var order []string
	hops := make([]*huma.Operation, len(ops))
	for i, op := range ops {
		hops[i] = f.describe(op)
		f.api.OpenAPI().AddOperation(hops[i])
		base, v, ext, ok := op.HTTP.Suffix()
		if !ok {
			continue
		}
		key := op.HTTP.Method + " " + base
		g := groups[key]
		if g == nil {
			g = &suffixGroup{method: op.HTTP.Method, path: base, variable: v, byExt: map[string]*registry.Operation{}}
			groups[key] = g
			order = append(order, key)
		}
		g.byExt[ext] = op
	}
	for i, op := range ops {
		if _, _, _, ok := op.HTTP.Suffix(); ok {
			continue
		}
		if g, ok := groups[op.HTTP.Method+" "+op.HTTP.Path]; ok {
			g.base, g.baseHop = op, hops[i]
			continue
		}
		f.api.Adapter().Handle(hops[i], f.handler(op))
	}
	for _, key := range order {
		g := groups[key]
		hop := g.baseHop
		if hop == nil {
			hop = &huma.Operation{Method: g.method, Path: g.path}
		}
		f.api.Adapter().Handle(hop, f.dispatch(g))
	}
}

// dispatch serves a suffix group: a value ending with a declared extension
// goes to its operation, with the variable set to the value without it;
// anything else goes to the route at the pattern, or is not found.
func (f *Face) dispatch(g *suffixGroup) func(huma.Context) {
	handlers := map[string]func(huma.Context){}
	for ext, op := range g.byExt {
		handlers[ext] = f.handler(op)
	}
	var base func(huma.Context)
	if g.base != nil {
		base = f.handler(g.base)
	}
	return func(hc huma.Context) {
		v := hc.Param(g.variable)
		if i := strings.LastIndexByte(v, '.'); i > 0 {
			if h, ok := handlers[v[i:]]; ok {
				h(paramContext{humaContext: hc, name: g.variable, value: v[:i]})
				return
			}
		}
		if base != nil {
			base(hc)
			return
		}
		p := registry.Fail(registry.KindNotFound, "nothing answers at this address").Problem()
		p.RequestID = registry.RequestID(hc.Context())
		writeJSON(hc, http.StatusNotFound, "application/problem+json", p)
	}
}

// paramContext is a request whose one path variable reads differently:
// the value without its extension.
type paramContext struct {
	humaContext
	name, value string
}

// humaContext names the embedded request apart from its Context method.
type humaContext = huma.Context

// Param implements huma.Context.
func (c paramContext) Param(name string) string {
	if name == c.name {
		return c.value
	}
	return c.humaContext.Param(name)
}
