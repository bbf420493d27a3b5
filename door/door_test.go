package door_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/door"
)

// TestKeys: the door's keys are in every product composing it, the
// sender defaulting to the product's own, and they decode together.
func TestKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give     door.Words
		wantFrom string
	}{
		{give: door.Words{Title: "Notes", MailFrom: "Notes <no-reply@notes.example>"}, wantFrom: "Notes <no-reply@notes.example>"},
		{give: door.Words{Title: "Gear"}, wantFrom: "Gear <no-reply@localhost>"},
	}
	for _, tt := range tests {
		t.Run(tt.give.Title, func(t *testing.T) {
			t.Parallel()
			var names []string
			for _, m := range door.Modules(tt.give) {
				for _, k := range m.Keys {
					names = append(names, k.Name)
				}
			}
			var keys []string
			for _, k := range door.Keys(tt.give) {
				keys = append(keys, k.Name)
			}
			require.Equal(t, keys, names, "the modules carry the door's keys")
			cfg, err := config.Load("", []string{"CAIRN_SMTP_URL=smtp://mail.example:587", "CAIRN_AUTH_CACHE_TTL=2s"}, door.Keys(tt.give)...)
			require.NoError(t, err)
			set, err := door.Decode(cfg)
			require.NoError(t, err)
			require.Equal(t, tt.wantFrom, set.MailFrom)
			require.Equal(t, "smtp://mail.example:587", set.SMTPURL)
			require.Equal(t, "2s", set.AuthCacheTTL.String())
		})
	}
	cfg, err := config.Load("", []string{"CAIRN_AUTH_CACHE_TTL=-1s"}, door.Keys(door.Words{Title: "Notes"})...)
	require.NoError(t, err)
	_, err = door.Decode(cfg)
	require.ErrorContains(t, err, "auth_cache_ttl: must not be negative")
}

// TestMetadataFetcher: the deployment's ranges and roots are read, and a
// bad one is named by its key.
func TestMetadataFetcher(t *testing.T) {
	t.Parallel()
	_, err := door.MetadataFetcher(door.Settings{OAuthMetadataAllow: "127.0.0.1/32"})
	require.NoError(t, err)
	_, err = door.MetadataFetcher(door.Settings{OAuthMetadataAllow: "localhost"})
	require.ErrorContains(t, err, "oauth_metadata_allow:")
	_, err = door.MetadataFetcher(door.Settings{OAuthMetadataRoots: "/nonexistent.pem"})
	require.ErrorContains(t, err, "oauth_metadata_roots:")
}
