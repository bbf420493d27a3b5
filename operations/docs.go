package operations

import (
	"embed"
	"io/fs"
	"net/http"
)

// The API reference is rendered by Redoc (MIT, see docs/REDOC-LICENSE),
// embedded so that /docs works offline: nothing is fetched from a CDN.
//
//go:embed docs/redoc.standalone.js
var docsFS embed.FS

const docsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cairn API reference</title>
<style>body { margin: 0; font-family: system-ui, sans-serif; }</style>
</head>
<body>
<redoc spec-url="/openapi.json" hide-download-button="false"></redoc>
<script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`

// MountDocs serves the API reference page at /docs and its script.
func MountDocs(mux *http.ServeMux) {
	mux.HandleFunc("GET /docs", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self' blob:; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")
		w.Header().Set("X-Frame-Options", "DENY")
		_, _ = w.Write([]byte(docsPage))
	})
	sub, err := fs.Sub(docsFS, "docs")
	if err != nil {
		panic(err) // the embedded folder exists at compile time
	}
	mux.Handle("GET /docs/redoc.standalone.js", http.StripPrefix("/docs/", http.FileServerFS(sub)))
}
