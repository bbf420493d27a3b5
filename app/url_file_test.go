package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
)

// TestTheServerKeepsItsAddress: a server without public_url keeps the
// address it listens at in data_dir while it runs, for the product's
// commands; stopped, it takes it back.
func TestTheServerKeepsItsAddress(t *testing.T) {
	t.Parallel()
	a := start(t, newProduct(), nil)
	raw, err := os.ReadFile(filepath.Join(a.Config.DataDir, app.URLFile))
	require.NoError(t, err)
	require.Equal(t, a.URL, strings.TrimSpace(string(raw)))
	require.Equal(t, a.URL, app.RecordedURL(a.Config))
	a.Stop(t)
	require.Empty(t, app.RecordedURL(a.Config), "a stopped server's address is not kept")
}
