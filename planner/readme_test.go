package planner_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/planner"
	"cairn.dev/cairn/registry"
)

// TestReadmeMatchesTheCode keeps the documentation honest: every
// configuration key and every problem type is documented.
func TestReadmeMatchesTheCode(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	readme := string(raw)
	require.True(t, strings.Contains(readme, "make test") && strings.Contains(readme, "make run"), "the two commands")
	for _, k := range append(append([]config.Key(nil), config.Keys...), planner.Keys()...) {
		require.True(t, strings.Contains(readme, "| `"+k.Name+"` |"), "configuration key %s is not in the README's table", k.Name)
	}
	for _, k := range registry.Kinds() {
		require.True(t, strings.Contains(readme, "`"+k.String()+"`"), "problem type %s is not documented", k)
	}
}
