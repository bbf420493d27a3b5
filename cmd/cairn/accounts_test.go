package main

import (
	"testing"

	"github.com/stretchr/testify/require"
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
