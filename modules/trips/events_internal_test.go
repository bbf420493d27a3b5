package trips

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// published finds, in the module's sources, every event type it publishes:
// through the pipeline's publish or a progress.Event literal.
var published = regexp.MustCompile(`(?:\.publish\(ctx, [^,]+, |progress\.Event\{Type: )"([a-z_]+)"`)

// TestEveryStreamEventIsDocumented: each event type the module publishes
// is in the stream's documentation (the OpenAPI description and the README
// are written from it), and nothing documented is never sent.
func TestEveryStreamEventIsDocumented(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	sent := map[string]bool{EventStatus: true} // sent by the stream itself
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range published.FindAllStringSubmatch(string(src), -1) {
			sent[m[1]] = true
		}
	}
	require.Greater(t, len(sent), 5, "the pattern finds the module's events")
	var documented []string
	for _, e := range (EventStream{}).EventTypes() {
		require.NotEmpty(t, e.Doc, e.Name)
		documented = append(documented, e.Name)
	}
	for name := range sent {
		require.Contains(t, documented, name, "event %s is published but not documented in streamEvents", name)
	}
	for _, name := range documented {
		require.True(t, sent[name], "event %s is documented but never published", name)
	}
	require.True(t, slices.Contains(documented, "computation_running") && slices.Contains(documented, "accommodations_found"))
}
