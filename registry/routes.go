package registry

import (
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
)

// A route may end with a URI variable followed by an extension, such as
// "/trips/{id}.gpx": the file of the resource "/trips/{id}" names, at an
// address beside it. Routers match whole segments, so the HTTP face serves
// every such route and the one at its base ("/trips/{id}", when declared)
// from one pattern, picks the operation by the extension the variable's
// value ends with, and hands the guards the value without it: the owner
// rule judges the bare id, as on the base route.

// suffixed matches the last segment of a suffixed route.
var suffixed = regexp.MustCompile(`^\{([A-Za-z][A-Za-z0-9_]*)\}(\.[a-z0-9]+)$`)

// Suffix reads a suffixed route: its base path ("/trips/{id}"), the
// variable the extension follows ("id") and the extension (".gpx"). ok is
// false for a route whose last segment is a whole variable or a literal.
func (r Route) Suffix() (base, variable, ext string, ok bool) {
	i := strings.LastIndex(r.Path, "/")
	if i < 0 {
		return "", "", "", false
	}
	m := suffixed.FindStringSubmatch(r.Path[i+1:])
	if m == nil {
		return "", "", "", false
	}
	return r.Path[:i+1] + "{" + m[1] + "}", m[1], m[2], true
}

// routeProblems refuses the routes a router could not serve: a variable
// sharing its segment with anything but a final extension, and a suffixed
// route whose base is declared with another variable name (one pattern
// serves both, so they must name the variable alike).
func routeProblems(ops []*Operation) []string {
	var out []string
	bases := map[string]string{} // "GET /trips/{}" → the variable named there
	for _, o := range ops {
		if o.HTTP.Method == "" {
			continue // reported as undeclared
		}
		if o.OutputType != nil && o.OutputType.Implements(reflect.TypeFor[Negotiated]()) && !o.HTTP.Pages() {
			out = append(out, fmt.Sprintf("%s: its output has a page (Negotiated) that no request can get: declare the route WithPages", o.ID))
		}
		segs := strings.Split(o.HTTP.Path, "/")
		for i, s := range segs {
			if !strings.Contains(s, "{") || pathVar.FindString(s) == s {
				continue
			}
			if _, _, _, ok := o.HTTP.Suffix(); ok && i == len(segs)-1 {
				continue
			}
			out = append(out, fmt.Sprintf("%s: the route %s puts a URI variable inside a segment; only the last one may, followed by an extension ({id}.gpx)", o.ID, o.HTTP.Path))
		}
		path, v := o.HTTP.Path, ""
		if base, sv, _, ok := o.HTTP.Suffix(); ok {
			path, v = base, sv
		} else if m := pathVar.FindStringSubmatch(segs[len(segs)-1]); m != nil && m[0] == segs[len(segs)-1] {
			v = m[1]
		}
		if v == "" {
			continue
		}
		key := o.HTTP.Method + " " + pathVar.ReplaceAllString(path, "{}")
		if other, ok := bases[key]; ok && other != v {
			out = append(out, fmt.Sprintf("%s: the route %s names {%s} where a route it shares a pattern with names {%s}; name them alike", o.ID, o.HTTP.Path, v, other))
		}
		bases[key] = v
	}
	return out
}

// WithPages declares that the route also answers a person's browser: when
// the request's Accept prefers text/html to JSON, the HTTP face marks the
// call (Call.WantsPage), writes the page of an output implementing
// Negotiated (an output that is a Page is one whoever asks), and writes a
// refusal as the page refused renders (a visitor opening a revoked link
// reads a page, not a problem document). Any other request gets the JSON
// as before.
func (r Route) WithPages(refused func(e *Error) Page) Route {
	r.refusalPage = refused
	return r
}

// Pages reports whether the route was declared WithPages.
func (r Route) Pages() bool { return r.refusalPage != nil }

// RefusalPage renders a refusal of a route declared WithPages; nil for any
// other route.
func (r Route) RefusalPage(e *Error) Page {
	if r.refusalPage == nil {
		return nil
	}
	return r.refusalPage(e)
}

// Negotiated is implemented by the output of a route declared WithPages:
// AsPage is the page a browser is shown, or nil when the call did not want
// one (the output is then written as JSON).
type Negotiated interface {
	AsPage() Page
}

// PagePolicy is implemented by a Page that states its own
// Content-Security-Policy, stricter than the face's default (a page that
// runs no script at all, say).
type PagePolicy interface {
	ContentSecurityPolicy() string
}

// StaticPage is a Page whose document is already rendered.
type StaticPage struct {
	HTML   []byte
	Policy string // the Content-Security-Policy; "" for the face's default
}

// WritePage implements Page.
func (p StaticPage) WritePage(w io.Writer) error { _, err := w.Write(p.HTML); return err }

// ContentSecurityPolicy implements PagePolicy.
func (p StaticPage) ContentSecurityPolicy() string { return p.Policy }

// Matching returns the rule refusing, before its check runs, a value that
// pattern does not match in full (a share code holding a character outside
// [A-Za-z0-9_-]): such a value can name nothing, so the refusal is a 400
// naming the variable rather than the not-found answer, and it tells
// nothing about any record.
func (o OwnerRule) Matching(pattern string) OwnerRule {
	o.shape = regexp.MustCompile(`^(?:` + pattern + `)$`)
	return o
}

// Shape is the pattern given to Matching, as given; "" when none.
func (o OwnerRule) Shape() string {
	if o.shape == nil {
		return ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(o.shape.String(), "^(?:"), ")$")
}

// Misshapen refuses a value the rule's pattern does not match; nil when it
// matches or the rule has none.
func (o OwnerRule) Misshapen(value string) *Error {
	if o.shape == nil || o.shape.MatchString(value) {
		return nil
	}
	return &Error{Kind: KindMalformed, Detail: "the address is malformed: " + o.Var + " holds characters it cannot hold",
		Violations: []Violation{{Field: o.Var, Reason: "must match " + o.Shape()}}}
}
