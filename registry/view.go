package registry

import (
	"fmt"
	"sort"
	"strings"
)

// View is an HTML view of a tool's results: a host that speaks the MCP
// Apps extension shows it in a sandboxed frame beside the result, and hands
// it the result (its structured content). One view may serve several
// tools. A view draws from what the host hands it: it names no origin to
// reach, so a host lets it load and connect to nothing (package views
// assembles such a document).
type View struct {
	// URI names the view's resource; it starts with "ui://".
	URI string
	// Name and Description say what the view shows, in resources/list.
	Name        string
	Description string
	// HTML is the whole document, its script and style inline.
	HTML []byte
	// ConnectDomains and ResourceDomains are the origins the view may
	// fetch from and load from; none, the norm here, means none at all.
	ConnectDomains  []string
	ResourceDomains []string
	// Permissions are browser features the view asks the host for, as the
	// extension names them (camera, microphone, geolocation,
	// clipboardWrite); none by default.
	Permissions []string
	// Border says whether the view prefers the host to draw a border and
	// background around it.
	Border bool
}

// ViewPermissions are the permissions a view may ask for.
var ViewPermissions = map[string]bool{"camera": true, "microphone": true, "geolocation": true, "clipboardWrite": true}

// Viewed returns the spec whose results the view shows. Every branch of a
// tool grouping several operations names the same view, or none.
func (t ToolSpec) Viewed(v *View) ToolSpec { t.View = v; return t }

// Views lists the views the tools name, each once, sorted by URI.
func (r *Registry) Views() []*View {
	seen := map[string]*View{}
	for _, o := range r.ops {
		if v := o.Tool.View; v != nil && o.Tool.IsTool() {
			seen[v.URI] = v
		}
	}
	out := make([]*View, 0, len(seen))
	for _, v := range seen {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

// viewProblems refuses a view without a ui:// URI or a document, two views
// under one URI, a tool whose branches name different views, an unknown
// permission, and a view on an operation that is not a tool.
func viewProblems(ops []*Operation) []string {
	var problems []string
	byURI := map[string]*View{}
	byTool := map[string]*View{}
	toolSeen := map[string]bool{}
	for _, o := range ops {
		v := o.Tool.View
		if !o.Tool.IsTool() {
			if v != nil {
				problems = append(problems, o.ID+": a view is declared on an operation that is not a tool")
			}
			continue
		}
		if w, ok := byTool[o.Tool.Name]; toolSeen[o.Tool.Name] && (ok || v != nil) && w != v {
			problems = append(problems, fmt.Sprintf("%s: the branches of tool %s name different views (each names the same one, or none)", o.ID, o.Tool.Name))
		}
		toolSeen[o.Tool.Name] = true
		if v == nil {
			continue
		}
		byTool[o.Tool.Name] = v
		switch {
		case !strings.HasPrefix(v.URI, "ui://") || len(v.URI) == len("ui://"):
			problems = append(problems, fmt.Sprintf("%s: view %q: a view's URI starts with ui://", o.ID, v.URI))
		case len(v.HTML) == 0:
			problems = append(problems, fmt.Sprintf("%s: view %s has no document", o.ID, v.URI))
		case v.Name == "":
			problems = append(problems, fmt.Sprintf("%s: view %s has no name", o.ID, v.URI))
		}
		if w, ok := byURI[v.URI]; ok && w != v {
			problems = append(problems, fmt.Sprintf("%s: two views are declared under %s", o.ID, v.URI))
		}
		byURI[v.URI] = v
		for _, p := range v.Permissions {
			if !ViewPermissions[p] {
				problems = append(problems, fmt.Sprintf("%s: view %s asks for %q, not a permission of the extension", o.ID, v.URI, p))
			}
		}
	}
	return problems
}
