package source

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSString(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give string // the literal's body, as in the page
		want string
	}{
		{name: "plain", give: `abc`, want: `abc`},
		{name: "JSON escapes", give: `{\"a\":\"b\\\/c\"}\n\t`, want: "{\"a\":\"b\\/c\"}\n\t"},
		{name: "single quote", give: `l\'Alpe d\'Huez`, want: `l'Alpe d'Huez`},
		{name: "hex escape", give: `caf\xe9 \x3cb\x3e`, want: "café <b>"},
		{name: "unicode escape", give: `\u00e9t\u00E9`, want: "été"},
		{name: "surrogate pair", give: `\ud83d\udeb2`, want: "🚲"},
		{name: "raw UTF-8", give: `Côte d’Azur`, want: "Côte d’Azur"},
		{name: "vertical tab and NUL", give: `a\vb\0c`, want: "a\vb\x00c"},
		{name: "needless escape", give: `\q\-`, want: `q-`},
		{name: "line continuation", give: "a\\\nb\\\r\nc", want: "abc"},
		{name: "raw control character", give: "a\tb", want: "a\tb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := jsString([]byte(tt.give))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestJSStringRefuses(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give string
	}{
		{name: "trailing backslash", give: `abc\`},
		{name: "short hex", give: `\x4`},
		{name: "bad hex", give: `\xzz`},
		{name: "bad unicode", give: `\u12`},
		{name: "code point escape", give: `\u{1F6B2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := jsString([]byte(tt.give))
			require.ErrorIs(t, err, errBadProps)
		})
	}
}

func TestParseKomootTourFindsTheLiteralEnd(t *testing.T) {
	t.Parallel()
	// An escaped quote followed by ");" inside the data must not end it.
	page := `<script>var x = 1;</script><script>kmtBoot.setProps("{\"page\":{\"_embedded\":{\"tour\":{` +
		`\"name\":\"Say \\\"hi\\\"); now\",\"_embedded\":{\"coordinates\":{\"items\":[` +
		`{\"lat\":45.5,\"lng\":6.25,\"alt\":1000},{\"lat\":45.6,\"lng\":6.3}]}}}}}}");</script>`

	title, points, err := parseKomootTour([]byte(page))

	require.NoError(t, err)
	assert.Equal(t, `Say "hi"); now`, title)
	require.Len(t, points, 2)
	assert.Equal(t, 45.5, points[0].Lat)
	assert.Equal(t, 6.25, points[0].Lon)
	assert.Equal(t, 1000.0, points[0].Ele)
	assert.Zero(t, points[1].Ele, "alt is optional")
}
