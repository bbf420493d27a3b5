package words_test

import (
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/words"
)

var placeholder = regexp.MustCompile(`\{([a-zA-Z]+)(?::\d)?\}`)

// TestEveryKeyHasEveryLanguage fails for a text missing a language, or
// whose languages do not take the same arguments.
func TestEveryKeyHasEveryLanguage(t *testing.T) {
	t.Parallel()
	require.NotEmpty(t, words.Keys())
	for _, key := range words.Keys() {
		var names [][]string
		for _, lang := range words.Languages() {
			tpl, ok := words.Template(lang, key)
			require.True(t, ok, "%s has no %s text", key, lang)
			require.NotEmpty(t, tpl, "%s is blank in %s", key, lang)
			var got []string
			for _, m := range placeholder.FindAllStringSubmatch(tpl, -1) {
				got = append(got, m[1])
			}
			slices.Sort(got)
			names = append(names, slices.Compact(got))
		}
		for _, n := range names[1:] {
			require.Equal(t, names[0], n, "%s takes other arguments in another language", key)
		}
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		lang string
		key  string
		args words.Args
		want string
	}{
		{"decimals", words.English, "alert.steep_gradient", words.Args{"day": 2, "km": 1.24, "grade": 9.46}, "Steep climb: 1.2 km at 9.5 % on average."},
		{"a French decimal comma", words.French, "alert.steep_gradient", words.Args{"day": 2, "km": 1.24, "grade": 9.46}, "Montée raide : 1,2 km à 9,5 % de moyenne."},
		{"an embedded text", words.French, "alert.border_crossing",
			words.Args{"day": 3, "from": words.T("country.FR", nil), "to": words.T("country.CH", nil)}, "Passage de frontière (France → Suisse) ; prenez vos papiers."},
		{"after a JSON round trip", words.English, "alert.border_crossing",
			words.Args{"day": float64(3), "from": map[string]any{"key": "country.FR"}, "to": "CH"}, "Border crossing (France → CH); carry your papers."},
		{"an unknown language speaks English", "de", "weather.rain", nil, "Rain"},
		{"an unknown key is itself", words.English, "no.such.key", nil, "no.such.key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, words.Render(tt.lang, tt.key, tt.args))
		})
	}
}
