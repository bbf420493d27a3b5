// Command notes serves the notes product over HTTP and MCP on the embedded
// defaults (SQLite in ./data, no Redis, mail to the outbox in ./data), and
// prints how to reach it: a development token, and a sign-in link mailed
// to the development user (-email), with which a person signs in in the
// browser and an MCP client connects by OAuth. Configuration is Cairn's:
// CAIRN_ADDR, CAIRN_DATABASE_URL, CAIRN_SMTP_URL … or a cairn.yaml in the
// working directory.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/door"
	"cairn.dev/cairn/examples/notes"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/mail"
	"cairn.dev/cairn/registry"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "notes:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("notes", flag.ContinueOnError)
	email := fs.String("email", "dev@notes.example", "the development user: a token is minted and a sign-in link mailed to it at every start")
	if err := fs.Parse(args); err != nil {
		return err
	}
	product := notes.Product()
	cfg, err := config.Load("", os.Environ(), product.Keys()...)
	if err != nil {
		return err
	}
	set, err := door.Decode(cfg)
	if err != nil {
		return err
	}
	log := app.NewLogger(cfg, os.Stderr)

	var (
		store *accounts.Store
		auth  *accounts.Auth
	)
	return app.Serve(product, cfg, log, func(ctx context.Context, srv *app.Server) error {
		token, err := door.DevToken(ctx, store, srv.Registry, *email)
		if err != nil {
			return fmt.Errorf("development user: %w", err)
		}
		// An invitation mails a fresh sign-in link, replacing any pending one.
		if _, _, err := auth.Invite(ctx, *email, "en"); err != nil {
			return err
		}
		w := welcome{URL: srv.URL(), Email: *email, Token: token, Scopes: toolScopes(srv.Registry)}
		if set.SMTPURL == "" {
			if w.Link, err = newestLink(door.OutboxDir(cfg), *email); err != nil {
				return err
			}
			w.Outbox = door.OutboxDir(cfg)
		}
		w.write(os.Stdout)
		return nil
	}, &store, &auth)
}

// newestLink is the link of the newest mail to addr in the outbox.
func newestLink(dir, addr string) (string, error) {
	ms, err := mail.NewOutbox(dir, nil).List()
	if err != nil {
		return "", err
	}
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].To == addr && ms[i].Link != "" {
			return ms[i].Link, nil
		}
	}
	return "", fmt.Errorf("no mail to %s in the outbox %s", addr, dir)
}

// toolScopes are what an OAuth client asks for: the scopes of the MCP
// tools.
func toolScopes(reg *registry.Registry) []string {
	var out []string
	for _, op := range reg.Operations() {
		if op.Tool.IsTool() && op.Scope != registry.Public && !slices.Contains(out, string(op.Scope)) {
			out = append(out, string(op.Scope))
		}
	}
	slices.Sort(out)
	return out
}

// welcome is what a newcomer is told at start.
type welcome struct {
	URL, Email, Token string
	Scopes            []string
	Link              string // the mailed sign-in link, read from the outbox; "" when it went through SMTP
	Outbox            string
}

// write tells how to reach the server: the URL, the token and a curl
// line, how a person signs in by the mailed link, and how to point an MCP
// client at /mcp, through OAuth or with the token.
func (w welcome) write(out io.Writer) {
	oauth, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"notes": map[string]any{
		"type": "http", "url": w.URL + "/mcp",
	}}}, "  ", "  ")
	withToken, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"notes": map[string]any{
		"type": "http", "url": w.URL + "/mcp",
		"headers": map[string]string{"Authorization": "Bearer " + w.Token},
	}}}, "  ", "  ")
	where := "in the mailbox of " + w.Email + " (smtp_url)"
	if w.Link != "" {
		where = w.Link + "\n    (also in the outbox " + w.Outbox + " and in the log)"
	}
	fmt.Fprintf(out, `
Notes is running at %[1]s
  API reference:  %[1]s/docs   (OpenAPI: %[1]s/openapi.json)
  Dev user:       %[2]s
  Dev token:      %[3]s   (new at every start; the previous one is revoked)

Try it:
  curl -H "Authorization: Bearer %[3]s" -H "Idempotency-Key: first-note-$(date +%%s)" \
    -H "Content-Type: application/json" -d '{"title":"First note"}' %[1]s/notes

Sign in as a person, in your browser (passwordless): a sign-in link for %[2]s is
  %[4]s
  Open it and press "Sign in": the page shows a session token and keeps you signed in to this
  server's own pages, the OAuth consent and %[1]s/account/apps (connected apps and tokens).
  Another link: POST %[1]s/auth/request-link {"email": "%[2]s"}; another person: run with -email.

MCP (streamable HTTP) at %[1]s/mcp
  With OAuth (the MCP authorization spec), no pasted token: give the client only the address:
  %[5]s
  On its first 401 the client reads %[1]s/.well-known/oauth-protected-resource/mcp, registers at
  %[1]s/oauth/register (or names its Client ID Metadata Document) and opens your browser at
  %[1]s/oauth/authorize: sign in first in that browser, then see which application asks for
  %[6]s, and Allow or Deny.
  MCP Inspector: CAIRN_ALLOWED_ORIGINS=http://localhost:6274 and this command, then
    npx @modelcontextprotocol/inspector   (Streamable HTTP, %[1]s/mcp, no authentication)
  With the dev token instead:
    npx @modelcontextprotocol/inspector --cli %[1]s/mcp --transport http \
      --header "Authorization: Bearer %[3]s" --method tools/list
  %[7]s

`, w.URL, w.Email, w.Token, where, oauth, strings.Join(w.Scopes, " and "), withToken)
}
