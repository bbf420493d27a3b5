package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/config"
)

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := config.Load("", nil)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:8080", c.Addr)
	require.Equal(t, "", c.DatabaseURL, "SQLite in the data folder by default")
	require.Equal(t, 15*time.Second, c.ShutdownGrace)
	require.Equal(t, "http://127.0.0.1:8080", c.URL())
}

func TestLayers(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cairn.yaml")
	require.NoError(t, os.WriteFile(path, []byte("addr: 0.0.0.0:9000\nlog_level: debug\n"), 0o600))
	c, err := config.Load(path, []string{"CAIRN_LOG_LEVEL=warn", "CAIRN_CONFIRM_TTL=2m", "HOME=/root"})
	require.NoError(t, err)
	require.Equal(t, "0.0.0.0:9000", c.Addr, "the file overrides the default")
	require.Equal(t, "warn", c.LogLevel, "the environment overrides the file")
	require.Equal(t, 2*time.Minute, c.ConfirmTTL)
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("adress: 1.2.3.4:80\n"), 0o600))
	tests := []struct {
		name string
		file string
		env  []string
		want string
	}{
		{"unknown file key", bad, nil, `unknown key "adress"`},
		{"unknown variable", "", []string{"CAIRN_DATABSE_URL=x"}, "unknown variable CAIRN_DATABSE_URL"},
		{"malformed duration", "", []string{"CAIRN_SHUTDOWN_GRACE=soon"}, "shutdown_grace"},
		{"malformed boolean", "", []string{"CAIRN_DEV=perhaps"}, "dev"},
		{"unknown log format", "", []string{"CAIRN_LOG_FORMAT=xml"}, "log_format"},
		{"unsupported database", "", []string{"CAIRN_DATABASE_URL=mysql://x"}, "database_url"},
		{"missing file", filepath.Join(dir, "absent.yaml"), nil, "absent.yaml"},
		{"an origin with a path", "", []string{"CAIRN_ALLOWED_ORIGINS=https://app.example.com/page"}, "allowed_origins"},
		{"an opaque origin", "", []string{"CAIRN_ALLOWED_ORIGINS=null"}, "allowed_origins"},
		{"a rescue before the timeout", "", []string{"CAIRN_JOB_TIMEOUT=2m", "CAIRN_JOB_RESCUE_AFTER=1m"}, "job_rescue_after"},
		{"no stream re-check", "", []string{"CAIRN_STREAM_RECHECK=0s"}, "stream_recheck"},
	}
	for _, tt := range tests {
		_, err := config.Load(tt.file, tt.env)
		require.ErrorContains(t, err, tt.want, tt.name)
	}
}

func TestOrigins(t *testing.T) {
	t.Parallel()
	c, err := config.Load("", []string{"CAIRN_ALLOWED_ORIGINS= https://App.Example.com , http://localhost:5173/,"})
	require.NoError(t, err)
	origins, err := c.Origins()
	require.NoError(t, err)
	require.Equal(t, []string{"https://app.example.com", "http://localhost:5173"}, origins, "as a browser writes them")
}
