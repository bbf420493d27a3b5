package planner_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/guardmatrix"
	"cairn.dev/cairn/planner"
)

// TestDocsOperationTableIsTheGuardMatrix: the operation table of
// docs/operations.md is the guard matrix, row for row, as `make guards`
// prints it.
func TestDocsOperationTableIsTheGuardMatrix(t *testing.T) {
	t.Parallel()
	raw := readDoc(t, "../docs/operations.md")
	cfg, err := config.Load("", nil, planner.Keys()...)
	require.NoError(t, err)
	reg, err := app.Registry(planner.Product(), cfg)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, guardmatrix.Write(&buf, reg, "markdown"))
	want := strings.TrimSpace(buf.String())
	readme := raw
	sec := strings.Index(readme, "## Operations\n")
	require.GreaterOrEqual(t, sec, 0, "docs/operations.md has an Operations section")
	start := strings.Index(readme[sec:], "| operation |")
	require.GreaterOrEqual(t, start, 0, "the Operations section has the table")
	table := readme[sec+start:]
	if end := strings.Index(table, "\n\n"); end >= 0 {
		table = table[:end]
	}
	require.Equal(t, want, strings.TrimSpace(table), "refresh the operation table of docs/operations.md from `make guards` (planner/testdata/guards.markdown.golden)")
}
