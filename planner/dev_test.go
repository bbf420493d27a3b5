package planner_test

import (
	"bytes"
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
}
