// Package views assembles the documents of MCP App views (registry.View):
// one self-contained HTML page, its style and script inline, the bridge to
// the host included, under a policy that lets it reach no origin at all.
package views

import (
	"crypto/sha256"
	_ "embed" // the bridge script
	"encoding/base64"
	"html"
	"strings"
)

// bridge is the view's end of the extension's bridge (window.view).
//
//go:embed bridge.js
var bridge string

// Document assembles a view's document: its style, its body and its
// script, with the bridge run before the script, under a
// Content-Security-Policy that names no origin to load from or connect to
// and lets run only these scripts and this style (by their hashes), so
// that nothing the view shows can make it reach elsewhere. The host's own
// policy comes on top; this one holds in a host that sets none.
func Document(lang, title, style, body, script string) []byte {
	csp := "default-src 'none'; img-src data:; style-src " + hash(style) +
		"; script-src " + hash(bridge) + " " + hash(script) +
		"; connect-src 'none'; form-action 'none'; base-uri 'none'"
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="` + html.EscapeString(lang) + `"><head><meta charset="utf-8">`)
	b.WriteString(`<meta http-equiv="Content-Security-Policy" content="` + csp + `">`)
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">`)
	b.WriteString(`<meta name="color-scheme" content="light dark">`)
	b.WriteString("<title>" + html.EscapeString(title) + "</title><style>" + style + "</style></head><body>")
	b.WriteString(body)
	b.WriteString("<script>" + bridge + "</script><script>" + script + "</script></body></html>\n")
	return []byte(b.String())
}

// hash is a CSP source naming one inline script or style by its digest.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}
