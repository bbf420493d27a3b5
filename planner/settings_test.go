package planner_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/planner"
)

// TestDigestCacheSettings: the digest cache's size, check interval and time
// heard are read from the configuration, and a size that cannot hold a
// digest or a negative interval is refused by name.
func TestDigestCacheSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		env       []string
		wantSize  int
		wantHeard time.Duration
		wantErr   string
	}{
		{name: "the default", wantSize: 25000, wantHeard: 30 * time.Second},
		{name: "a size given", env: []string{"CAIRN_DIGEST_CACHE_SIZE=50000"}, wantSize: 50000, wantHeard: 30 * time.Second},
		{name: "not listening", env: []string{"CAIRN_DIGEST_HEARD_TTL=0s"}, wantSize: 25000},
		{name: "too small", env: []string{"CAIRN_DIGEST_CACHE_SIZE=1"}, wantErr: "digest_cache_size"},
		{name: "a negative interval", env: []string{"CAIRN_DIGEST_CACHE_TTL=-1s"}, wantErr: "digest_cache_ttl"},
		{name: "a negative time heard", env: []string{"CAIRN_DIGEST_HEARD_TTL=-1s"}, wantErr: "digest_heard_ttl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.Load("", tt.env, planner.Keys()...)
			require.NoError(t, err)
			s, err := planner.Decode(cfg)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantSize, s.DigestCacheSize)
			require.Equal(t, tt.wantHeard, s.DigestHeardTTL)
		})
	}
}
