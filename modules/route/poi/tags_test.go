package poi_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/poi"
)

// TestTagsScanReadsAsJSONDoes: whatever the stored text, Scan reads the
// tags encoding/json reads, and refuses what it refuses.
func TestTagsScanReadsAsJSONDoes(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		`{}`,
		`{"opening_hours":"Mo-Sa 08:00-20:00"}`,
		`{"a":"b","c":"d","e":""}`,
		`{"name":"Café de l'Église"}`,
		`{"q":"say \"hi\"","u":"\u00e9\u003c"}`,
		`{ "a" : "b" }`,
		`{"a":"b",}`,
		`{"a":1}`,
		`{"a":"b"`,
		`{"a"}`,
		`{"a":"b""c":"d"}`,
		`{"a":"b",,"c":"d"}`,
		`{"a":"x"}{"b":"y"}`,
	} {
		t.Run(text, func(t *testing.T) {
			var want map[string]string
			wantErr := json.Unmarshal([]byte(text), &want)
			var got poi.Tags
			err := got.Scan(text)
			if wantErr != nil {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, want, map[string]string(got))
		})
	}
}
