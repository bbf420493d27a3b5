package planner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/planner"
	"cairn.dev/cairn/registry"
)

// TestReadmeMatchesTheCode keeps the documentation honest: the README
// gives the two commands and links every page of docs/, every
// configuration key is in docs/configuration.md's table and every problem
// type in docs/http.md.
func TestReadmeMatchesTheCode(t *testing.T) {
	t.Parallel()
	readme := readDoc(t, "../README.md")
	require.True(t, strings.Contains(readme, "make test") && strings.Contains(readme, "make run"), "the two commands")
	pages, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, pages)
	for _, p := range pages {
		require.Contains(t, readme, "(docs/"+filepath.Base(p)+")", "the README's map of the docs links %s", p)
	}
	configuration := readDoc(t, "../docs/configuration.md")
	for _, k := range append(append([]config.Key(nil), config.Keys...), planner.Keys()...) {
		require.True(t, strings.Contains(configuration, "| `"+k.Name+"` |"), "configuration key %s is not in docs/configuration.md's table", k.Name)
	}
	problems := readDoc(t, "../docs/http.md")
	for _, k := range registry.Kinds() {
		require.True(t, strings.Contains(problems, "`"+k.String()+"`"), "problem type %s is not documented in docs/http.md", k)
	}
}

// readDoc reads a documentation page of the repository.
func readDoc(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(raw)
}
