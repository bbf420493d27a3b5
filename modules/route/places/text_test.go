package places_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/text"
)

// TestNominatimBoundsAndCleansText answers with names far over their
// limits, control and bidi characters and a country code that is not one:
// what Search returns follows the rule of package text.
func TestNominatimBoundsAndCleansText(t *testing.T) {
	t.Parallel()
	n, deps := setupNominatim(t, nil)
	results := []map[string]any{
		{
			"lat": "45.7578137", "lon": "4.8320114", "type": "city", "addresstype": "city",
			"name":         "\u202E Lyon\x00\t\u0085" + strings.Repeat("n", 300_000),
			"display_name": "Lyon,\r\n Rhône\u007f, " + strings.Repeat("d", 300_000),
			"address":      map[string]any{"country_code": "fr\u0000<script>"},
		},
		{
			"lat": "41.8", "lon": "-87.8", "type": "village", "addresstype": "village",
			"display_name": "  \tLyons\u0000 ,  Illinois ", // no name: the first part of display_name
			"address":      map[string]any{"country_code": "us"},
		},
		{
			"lat": "1", "lon": "1", "type": "village", "name": "\x00\u202E\t ", // nothing left of the name
			"address": map[string]any{"country_code": "FRA"},
		},
	}
	body, err := json.Marshal(results)
	require.NoError(t, err)
	require.Less(t, len(body), 1<<20, "the answer stays under the provider's size cap")
	deps.up.set(0, string(body))

	got, err := n.Search(context.Background(), "lyon", 10)

	require.NoError(t, err)
	require.Len(t, got, 2)
	lyon := got[0]
	assert.Equal(t, text.MaxName, utf8.RuneCountInString(lyon.Name))
	assert.True(t, strings.HasPrefix(lyon.Name, "Lyon nnn"), "%.20q", lyon.Name)
	assert.Equal(t, text.MaxAddress, utf8.RuneCountInString(lyon.DisplayName))
	assert.True(t, strings.HasPrefix(lyon.DisplayName, "Lyon, Rhône, ddd"), "%.20q", lyon.DisplayName)
	assert.Empty(t, lyon.Country, "not a country code")
	assert.Equal(t, "Lyons", got[1].Name)
	assert.Equal(t, "Lyons , Illinois", got[1].DisplayName)
	assert.Equal(t, "US", got[1].Country)
	assert.Equal(t, 1, deps.up.count())
}
