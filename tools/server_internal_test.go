package tools

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTheSDKLogsOnlyWarnings: the SDK's lines at Info (one per session,
// so three per stateless call) are dropped; its warnings and errors, with
// the attributes and groups they carry, are kept.
func TestTheSDKLogsOnlyWarnings(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	log := warnings(slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log.Info("server session connected", "session_id", "x")
	log.Debug("noise")
	require.Empty(t, b.String())
	log.With("component", "mcp").WithGroup("g").Warn("a warning", "k", "v")
	log.Error("an error")
	require.Contains(t, b.String(), `msg="a warning" component=mcp g.k=v`)
	require.Contains(t, b.String(), `msg="an error"`)
	require.Nil(t, warnings(nil))
}
