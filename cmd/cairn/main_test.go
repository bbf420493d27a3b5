package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
		{"pois", []string{"pois", "import", "../../modules/route/poi/testdata/fixture-osmium.osm"}, "imported 2 nodes and 3 ways"},
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
