package planner_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/planner"
)

func TestWelcomeSaysHowToSignIn(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	planner.PrintWelcome(&b, "http://127.0.0.1:8080", "dev@cairn.local", "cairn_pat_x")
	for _, want := range []string{"cairn users invite --email", "cairn mail read", "http://127.0.0.1:8080/auth/verify", "Bearer cairn_pat_x",
		"OAuth instead of a pasted token", "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp",
		"http://127.0.0.1:8080/oauth/authorize", "Client ID Metadata Document", "@modelcontextprotocol/inspector",
		"http://127.0.0.1:8080/account/apps"} {
		require.Contains(t, b.String(), want)
	}
	// The OAuth way gives the client the address alone: no token, no header.
	_, oauthPart, ok := strings.Cut(b.String(), "OAuth instead of a pasted token")
	require.True(t, ok)
	oauthPart, _, _ = strings.Cut(oauthPart, "MCP Inspector")
	require.Contains(t, oauthPart, `"url": "http://127.0.0.1:8080/mcp"`)
	require.NotContains(t, oauthPart, "cairn_pat_x")
	require.NotContains(t, oauthPart, "Authorization")
	require.NotContains(t, oauthPart, "headers")
}
