package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
)

// TestInviteAndMail: an invitation lands in the outbox, where `cairn mail`
// reads it back; refused invitations name their flag.
func TestInviteAndMail(t *testing.T) {
	t.Setenv("CAIRN_DATA_DIR", t.TempDir())
	out, err := cairn("mail", "list")
	require.NoError(t, err)
	require.Contains(t, out, "is empty")

	out, err = cairn("users", "invite", "--email", "Me@Example.com", "--locale", "en")
	require.NoError(t, err)
	require.Contains(t, out, "me@example.com")
	require.Contains(t, out, "created")
	out, err = cairn("users", "invite", "--email", "me@example.com")
	require.NoError(t, err)
	require.Contains(t, out, "already a user", "inviting again mails a fresh link")

	out, err = cairn("mail", "list")
	require.NoError(t, err)
	require.Contains(t, out, "/auth/verify/")
	out, err = cairn("mail", "read")
	require.NoError(t, err)
	require.Contains(t, out, "To: me@example.com")
	require.Contains(t, out, "Your access to Cairn", "in the account's language")

	_, err = cairn("users", "invite", "--email", "not-an-address")
	require.ErrorContains(t, err, "--email")
	_, err = cairn("users", "invite", "--email", "x@example.com", "--locale", "de")
	require.ErrorContains(t, err, "--locale")

	out, err = cairn("access-requests", "list", "--all")
	require.NoError(t, err)
	require.Contains(t, out, "EMAIL")
}

// TestInviteMailsTheRunningServersAddress: without public_url, an
// invitation's link points where the server of the same data_dir listens
// (it keeps its address there while it runs), not at the default addr.
func TestInviteMailsTheRunningServersAddress(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CAIRN_DATA_DIR", dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, app.URLFile), []byte("http://127.0.0.1:9123\n"), 0o600))
	_, err := cairn("users", "invite", "--email", "port@example.com", "--locale", "en")
	require.NoError(t, err)
	out, err := cairn("mail", "read")
	require.NoError(t, err)
	require.Contains(t, out, "http://127.0.0.1:9123/auth/verify/")
	require.NotContains(t, out, ":8080/")
}
