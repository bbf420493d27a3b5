package planner

import (
	"encoding/json"
	"fmt"
	"io"
)

// PrintWelcome tells a newcomer how to reach the server: the URL, the token,
// a curl line, how to sign in as a person through a mailed link, and how to
// point MCP clients at it, with the token or through OAuth.
func PrintWelcome(w io.Writer, url, email, token string) {
	desktop := map[string]any{"mcpServers": map[string]any{"cairn": map[string]any{
		"type": "http", "url": url + "/mcp",
		"headers": map[string]string{"Authorization": "Bearer " + token},
	}}}
	cfg, _ := json.MarshalIndent(desktop, "  ", "  ")
	// The same client through OAuth: it obtains its token itself.
	oauthCfg, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"cairn": map[string]any{
		"type": "http", "url": url + "/mcp",
	}}}, "  ", "  ")
	fmt.Fprintf(w, `
Cairn is running at %[1]s
  API reference:  %[1]s/docs   (OpenAPI: %[1]s/openapi.json)
  Dev user:       %[2]s
  Dev token:      %[3]s   (new at every start; the previous one is revoked)

Try it:
  curl -H "Authorization: Bearer %[3]s" %[1]s/trips

Sign in as yourself (invite-only, passwordless), in another terminal:
  go run ./cmd/cairn users invite --email you@example.com --locale en
  go run ./cmd/cairn mail read       # the invitation; its link is also in this log
  curl -X POST %[1]s/auth/verify -H 'Content-Type: application/json' -d '{"token":"<the link's last part>"}'
  (answers {"token": "cairn_pat_…", "refresh_token": "…"}: use the token as above; it lives 15 minutes,
   POST /auth/refresh with the refresh_token gets the next one)

MCP (streamable HTTP) at %[1]s/mcp
  Inspector CLI:
    npx @modelcontextprotocol/inspector --cli %[1]s/mcp --transport http \
      --header "Authorization: Bearer %[3]s" --method tools/list
  Desktop client configuration:
  %[4]s

MCP with OAuth instead of a pasted token (OAuth 2.1, the MCP authorization spec):
  give the client only the address, no token and no header:
  %[5]s
  MCP Inspector: CAIRN_ALLOWED_ORIGINS=http://localhost:6274 make run, then
    npx @modelcontextprotocol/inspector   (Streamable HTTP, %[1]s/mcp, no authentication)
  First sign in in your browser (the invitation's link above, "Sign in"): the consent page
  knows you by that session. On its first 401 the client reads
  %[1]s/.well-known/oauth-protected-resource/mcp, names its Client ID Metadata Document
  (an https client_id) or registers at %[1]s/oauth/register, and opens your browser at
  %[1]s/oauth/authorize; you see which application asks for trips:read and trips:write,
  whether it is registered or self-described, and Allow or Deny.
  Access tokens live 1 hour, refresh tokens 30 days (rotating); POST %[1]s/oauth/revoke ends one.
  Connected apps and tokens (revoke a grant, create a personal access token):
    %[1]s/account/apps

`, url, email, token, cfg, oauthCfg)
}
