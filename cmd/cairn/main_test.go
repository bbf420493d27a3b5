package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/planner"
)

// TestCommands runs the cairn command's subcommands on a SQLite file of the
// test's own.
func TestCommands(t *testing.T) {
	t.Setenv("CAIRN_DATA_DIR", t.TempDir())
	tests := []struct {
		name string
		give []string
		want string
	}{
		{"migrate", []string{"migrate"}, "migration(s) applied"},
		{"token", []string{"token", "create", "--email", "cli@example.com", "--scope", "trips:read"}, "cairn_pat_"},
		{"pois", []string{"pois", "import", "../../modules/route/poi/testdata/fixture-osmium.osm"}, "imported 6 places (3 nodes and 3 ways"},
		{"guards", []string{"guards", "--format", "json"}, `"trips.create"`},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		require.NoError(t, run(tt.give, &out, &errOut), "%s: %s", tt.name, errOut.String())
		require.Contains(t, out.String(), tt.want, tt.name)
	}
	var out, errOut bytes.Buffer
	err := run([]string{"token", "create", "--email", "cli@example.com", "--scope", "trips:admin"}, &out, &errOut)
	require.ErrorContains(t, err, "unknown scope")
	err = run([]string{"frobnicate"}, &out, &errOut)
	require.ErrorContains(t, err, "unknown command")
	require.True(t, strings.Contains(errOut.String(), "usage:"))
}

// cairn runs the command with args and returns what it printed.
func cairn(args ...string) (string, error) {
	var out, errOut bytes.Buffer
	err := run(args, &out, &errOut)
	return out.String(), err
}

// TestTokenListAndRevoke: a user's tokens are listed with their name,
// scopes, creation, expiry and revocation; one is revoked by its id, others
// by their name, and a revoked token no longer authenticates.
func TestTokenListAndRevoke(t *testing.T) {
	t.Setenv("CAIRN_DATA_DIR", t.TempDir())
	const email = "revoke@example.com"
	secrets := map[string]string{}
	for _, name := range []string{"laptop", "phone", "phone"} {
		out, err := cairn("token", "create", "--email", email, "--scope", "trips:read", "--name", name, "--ttl", "720h")
		require.NoError(t, err)
		secrets[name] = strings.TrimSpace(out)
	}
	rows := func() map[string][]string { // by id: name, scopes, created, expires, revoked
		out, err := cairn("token", "list", "--email", email)
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Equal(t, []string{"ID", "NAME", "SCOPES", "CREATED", "EXPIRES", "REVOKED"}, strings.Fields(lines[0]))
		m := map[string][]string{}
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			require.Len(t, f, 6, l)
			m[f[0]] = f[1:]
		}
		return m
	}
	before := rows()
	require.Len(t, before, 3)
	var laptop string
	for id, r := range before {
		require.Equal(t, "trips:read", r[1])
		require.NotEqual(t, "never", r[3], "a token made with a TTL has an expiry")
		require.Equal(t, "-", r[4], "not revoked")
		require.NotContains(t, strings.Join(r, " "), "cairn_pat_", "no secret is listed")
		if r[0] == "laptop" {
			laptop = id
		}
	}

	out, err := cairn("token", "revoke", "--email", email, laptop)
	require.NoError(t, err)
	require.Contains(t, out, "revoked 1 token(s)")
	out, err = cairn("token", "revoke", "--email", email, "phone")
	require.NoError(t, err)
	require.Contains(t, out, "revoked 2 token(s)")
	for id, r := range rows() {
		require.NotEqual(t, "-", r[4], "%s (%s) is revoked", id, r[0])
	}
	_, err = cairn("token", "revoke", "--email", email, "phone")
	require.ErrorContains(t, err, "no active token matches", "nothing left to revoke")
	_, err = cairn("token", "list", "--email", "nobody@example.com")
	require.ErrorContains(t, err, "no user has this email")
	_, err = cairn("token", "revoke", "--email", email)
	require.ErrorContains(t, err, "usage: cairn token revoke")

	// The store the server authenticates with refuses what was revoked.
	cfg, err := config.Load("", os.Environ(), planner.Keys()...)
	require.NoError(t, err)
	store, done, err := accountStore(context.Background(), cfg)
	require.NoError(t, err)
	defer done()
	p, err := store.Authenticate(context.Background(), secrets["laptop"])
	require.NoError(t, err)
	require.Nil(t, p, "a revoked token no longer authenticates")
}
