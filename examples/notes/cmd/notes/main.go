// Command notes serves the notes product over HTTP and MCP on the embedded
// defaults (SQLite in ./data, no Redis), mints a development token and
// prints how to reach the server. Configuration is Cairn's: CAIRN_ADDR,
// CAIRN_DATABASE_URL … or a cairn.yaml in the working directory.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/examples/notes"
)

// devEmail is the development user every start mints a token for.
const devEmail = "dev@notes.example"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "notes:", err)
		os.Exit(1)
	}
}

func run() error {
	product := notes.Product()
	cfg, err := config.Load("", os.Environ(), product.Keys()...)
	if err != nil {
		return err
	}
	log := app.NewLogger(cfg, os.Stderr)

	var issuer app.TokenIssuer
	return app.Serve(product, cfg, log, func(ctx context.Context, srv *app.Server) error {
		// Tokens live in memory: each start mints a new one, for every
		// scope the product declares.
		token, err := issuer.IssueToken(ctx, devEmail, srv.Registry.Scopes())
		if err != nil {
			return err
		}
		welcome(os.Stdout, srv.URL(), token)
		return nil
	}, &issuer)
}

// welcome tells a newcomer how to reach the server: the URL, the token, a
// curl line, and how to point an MCP client at /mcp.
func welcome(w io.Writer, url, token string) {
	desktop := map[string]any{"mcpServers": map[string]any{"notes": map[string]any{
		"type": "http", "url": url + "/mcp",
		"headers": map[string]string{"Authorization": "Bearer " + token},
	}}}
	client, _ := json.MarshalIndent(desktop, "  ", "  ")
	fmt.Fprintf(w, `
Notes is running at %[1]s
  API reference:  %[1]s/docs   (OpenAPI: %[1]s/openapi.json)
  Dev user:       %[2]s
  Dev token:      %[3]s   (in memory: a new one at every start)

Try it:
  curl -H "Authorization: Bearer %[3]s" -H "Idempotency-Key: first-note-$(date +%%s)" \
    -H "Content-Type: application/json" -d '{"title":"First note"}' %[1]s/notes

MCP (streamable HTTP) at %[1]s/mcp
  Inspector CLI:
    npx @modelcontextprotocol/inspector --cli %[1]s/mcp --transport http \
      --header "Authorization: Bearer %[3]s" --method tools/list
  Desktop client configuration:
  %[4]s

`, url, devEmail, token, client)
}
