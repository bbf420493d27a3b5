package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/mail"
)

// TestWelcomeSaysHowToSignIn: the start tells where the server is, the
// token, the mailed link a person signs in with, and how an MCP client
// connects by OAuth without a token, naming the scopes it asks for.
func TestWelcomeSaysHowToSignIn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		give welcome
		want []string
	}{
		{
			name: "the outbox",
			give: welcome{URL: "http://127.0.0.1:8080", Email: "dev@notes.example", Token: "cairn_pat_x",
				Scopes: []string{"notes:read", "notes:write"}, Link: "http://127.0.0.1:8080/auth/verify/abc", Outbox: "data/outbox"},
			want: []string{"http://127.0.0.1:8080/auth/verify/abc", "outbox data/outbox"},
		},
		{
			name: "SMTP",
			give: welcome{URL: "http://127.0.0.1:8080", Email: "you@example.com", Token: "cairn_pat_x",
				Scopes: []string{"notes:read", "notes:write"}},
			want: []string{"in the mailbox of you@example.com (smtp_url)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			tt.give.write(&b)
			out := b.String()
			for _, s := range append(tt.want,
				"Notes is running at http://127.0.0.1:8080",
				"Authorization: Bearer cairn_pat_x",
				"/.well-known/oauth-protected-resource/mcp",
				"/oauth/register", "/oauth/authorize", "/account/apps",
				"asks for\n  notes:read and notes:write",
				`"url": "http://127.0.0.1:8080/mcp"`,
			) {
				require.Contains(t, out, s)
			}
		})
	}
}

func TestNewestLink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	box := mail.NewOutbox(dir, nil)
	_, err := newestLink(dir, "dev@notes.example")
	require.ErrorContains(t, err, "no mail to dev@notes.example")
	ctx := context.Background()
	for _, m := range []mail.Message{
		{To: "dev@notes.example", Subject: "first", Link: "http://x/auth/verify/1"},
		{To: "other@notes.example", Subject: "other", Link: "http://x/auth/verify/2"},
		{To: "dev@notes.example", Subject: "second", Link: "http://x/auth/verify/3"},
		{To: "other@notes.example", Subject: "again", Link: "http://x/auth/verify/4"},
	} {
		require.NoError(t, box.Send(ctx, m))
	}
	link, err := newestLink(dir, "dev@notes.example")
	require.NoError(t, err)
	require.Equal(t, "http://x/auth/verify/3", link)
}
