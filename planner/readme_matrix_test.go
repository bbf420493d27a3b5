package planner_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/guardmatrix"
	"cairn.dev/cairn/planner"
)

// TestReadmeOperationTableIsTheGuardMatrix: the README's operation table
// is the guard matrix, row for row, as `make guards` prints it.
func TestReadmeOperationTableIsTheGuardMatrix(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	cfg, err := config.Load("", nil, planner.Keys()...)
	require.NoError(t, err)
	reg, err := app.Registry(planner.Product(), cfg)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, guardmatrix.Write(&buf, reg, "markdown"))
	want := strings.TrimSpace(buf.String())
	readme := string(raw)
	sec := strings.Index(readme, "## Operations\n")
	require.GreaterOrEqual(t, sec, 0, "the README has an Operations section")
	start := strings.Index(readme[sec:], "| operation |")
	require.GreaterOrEqual(t, start, 0, "the Operations section has the table")
	table := readme[sec+start:]
	if end := strings.Index(table, "\n\n"); end >= 0 {
		table = table[:end]
	}
	require.Equal(t, want, strings.TrimSpace(table), "refresh the README's operation table from `make guards` (planner/testdata/guards.markdown.golden)")
}
