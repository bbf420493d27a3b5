package registry

import (
	"fmt"
	"regexp"
	"slices"
)

// ResourceSpec serves an operation as an MCP resource rather than a tool:
// a client reads it by URI (resources/read), where a tool is called by a
// model. A URI holding variables ("notes://{id}/text") is a template
// (resources/templates/list): its variables are the HTTP route's, so the
// owner guard judges the same values on both faces. The guard chain runs
// on every read as on any call; the answer is the output's content blocks
// (registry.Contents), else its JSON.
type ResourceSpec struct {
	URI         string // a fixed URI, or a template of level 1 ({id})
	Name        string // lower snake case, unique among the resources
	Title       string // the display name; "" for none
	Description string
	MIMEType    string // the type of what is read; a block's own type wins
}

// Resource declares the MCP resource serving an operation.
func Resource(uri, name, description string) ResourceSpec {
	return ResourceSpec{URI: uri, Name: name, Description: description}
}

// Typed returns the spec with the media type of what is read.
func (r ResourceSpec) Typed(mimeType string) ResourceSpec { r.MIMEType = mimeType; return r }

// IsResource reports whether the operation is served as a resource.
func (r ResourceSpec) IsResource() bool { return r.URI != "" }

// IsTemplate reports whether the URI holds variables.
func (r ResourceSpec) IsTemplate() bool { return len(r.Variables()) > 0 }

// Variables lists the template's variables, in order.
func (r ResourceSpec) Variables() []string {
	var out []string
	for _, m := range pathVar.FindAllStringSubmatch(r.URI, -1) {
		out = append(out, m[1])
	}
	return out
}

// Resources lists the operations served as resources, in registry order.
func (r *Registry) Resources() []*Operation {
	var out []*Operation
	for _, o := range r.Operations() {
		if o.Resource.IsResource() {
			out = append(out, o)
		}
	}
	return out
}

var (
	resourceURI = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://[^\s]+$`)
	// Level 1 only: {name}, no operator, so that a read's URI matches
	// one way.
	templateExpr = regexp.MustCompile(`\{[^}]*\}`)
)

// resourceProblems refuses a resource that is also a tool or writes, one
// without a name, description or well-formed URI, a template whose
// variables are not the route's, and two resources under one URI or name.
func resourceProblems(ops []*Operation) []string {
	var out []string
	uris, names := map[string]string{}, map[string]string{}
	for _, o := range ops {
		s := o.Resource
		if !s.IsResource() {
			continue
		}
		add := func(format string, args ...any) {
			out = append(out, o.ID+": resource "+s.URI+": "+fmt.Sprintf(format, args...))
		}
		if o.Tool.IsTool() || o.Tool.Motive != motiveNone {
			add("an operation served as a resource declares no tool and no exclusion motive")
		}
		if o.Writes() {
			add("a resource is read: its route is a GET or a reading POST")
		}
		if !resourceURI.MatchString(s.URI) {
			add("the URI must read scheme://...")
		}
		for _, e := range templateExpr.FindAllString(s.URI, -1) {
			if !pathVar.MatchString(e) || len(pathVar.FindString(e)) != len(e) {
				add("%s: a template's variable is a plain {name}", e)
			}
		}
		if vars, route := s.Variables(), o.URIVariables(); !slices.Equal(sorted(vars), sorted(route)) {
			add("its variables %v are not the route's %v", vars, route)
		}
		if !promptName.MatchString(s.Name) {
			add("a resource's name is lower snake case, at most 64 characters")
		}
		if s.Description == "" {
			add("no description")
		}
		if other, ok := uris[s.URI]; ok {
			add("the URI is already served by %s", other)
		}
		if other, ok := names[s.Name]; ok {
			add("the name %s is already used by %s", s.Name, other)
		}
		uris[s.URI], names[s.Name] = o.ID, o.ID
	}
	return out
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
