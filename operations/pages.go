package operations

import (
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"cairn.dev/cairn/registry"
)

// negotiate marks a call of a route declared WithPages whose request
// prefers a page, and says on every answer of such a route that it
// depends on Accept, so that no cache hands a browser's page to an API
// client or the other way round.
func negotiate(hc huma.Context, c *registry.Call) {
	if !c.Op.HTTP.Pages() {
		return
	}
	hc.AppendHeader("Vary", "Accept")
	c.WantsPage = PrefersHTML(hc.Header("Accept"))
}

// PrefersHTML reads an Accept header: true when it names text/html (or
// text/*) with a weight above the one JSON gets (application/json,
// application/*, or */*). A browser's "text/html,…,*/*;q=0.8" prefers the
// page; "application/json", "*/*" or no header at all keep the JSON, as
// does a tie.
func PrefersHTML(accept string) bool {
	html, json := 0.0, 0.0
	for _, part := range strings.Split(accept, ",") {
		fields := strings.Split(part, ";")
		mt := strings.ToLower(strings.TrimSpace(fields[0]))
		q := 1.0
		for _, p := range fields[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = x
				}
			}
		}
		switch mt {
		case "text/html", "text/*", "application/xhtml+xml":
			html = max(html, q)
		case "application/json", "application/*", "*/*":
			json = max(json, q)
		}
	}
	return html > 0 && html > json
}

// writeNegotiated writes the page of a call that wanted one, when its
// output has it; false leaves the output to be written as JSON.
func writeNegotiated(hc huma.Context, c *registry.Call, out any, tagged bool) bool {
	n, ok := out.(registry.Negotiated)
	if !ok || !c.WantsPage {
		return false
	}
	pg := n.AsPage()
	if pg == nil {
		return false
	}
	writePage(hc, c.Op.HTTP.Status, pg, tagged)
	return true
}

// writeRefusalPage writes a refusal as the route's page, for a call that
// wanted one; false leaves it to be written as a problem.
func writeRefusalPage(hc huma.Context, c *registry.Call, e *registry.Error) bool {
	if !c.WantsPage {
		return false
	}
	pg := c.Op.HTTP.RefusalPage(e)
	if pg == nil {
		return false
	}
	writePage(hc, e.Kind.Status(), pg, false)
	return true
}

// policyOf is the Content-Security-Policy a page is sent under: its own
// when it states one, the face's default otherwise.
func policyOf(pg registry.Page) string {
	if p, ok := pg.(registry.PagePolicy); ok && p.ContentSecurityPolicy() != "" {
		return p.ContentSecurityPolicy()
	}
	return pagePolicy
}
