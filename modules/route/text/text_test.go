package text_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/text"
)

func TestClean(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		give  string
		limit int
		want  string
	}{
		{name: "clean already", give: "Tour du Mont Blanc", limit: 255, want: "Tour du Mont Blanc"},
		{name: "accents and symbols kept", give: `Col du "Galibier" & Lautaret — été <b>`, limit: 255, want: `Col du "Galibier" & Lautaret — été <b>`},
		{name: "empty", give: "", limit: 255, want: ""},
		{name: "only white space", give: " \t\r\n\u00a0\u3000 ", limit: 255, want: ""},
		{name: "trimmed", give: "  Alpes  ", limit: 255, want: "Alpes"},
		{name: "runs collapsed", give: "Grenoble\t\t→\r\nLa  Mure", limit: 255, want: "Grenoble → La Mure"},
		{name: "no-break and ideographic spaces", give: "a\u00a0b\u3000c\u2028d", limit: 255, want: "a b c d"},
		{name: "NUL dropped", give: "Col\x00 du\x00Lautaret", limit: 255, want: "Col duLautaret"},
		{name: "C0, DEL and C1 dropped", give: "a\x01\x1b[31mb\x7fc\u0085d\u009be", limit: 255, want: "a[31mbc d" + "e"},
		{name: "bidi controls dropped", give: "abc\u202Eevil\u202C\u2066x\u2069", limit: 255, want: "abcevilx"},
		{name: "byte order mark dropped", give: "\uFEFFRoute", limit: 255, want: "Route"},
		{name: "invalid UTF-8 replaced", give: "a\xffb\xe2\x82", limit: 255, want: "a\uFFFDb\uFFFD"},
		{name: "emoji kept whole", give: "🚴‍♀️ ride", limit: 255, want: "🚴‍♀️ ride"},
		{name: "cut in runes", give: "ééééé", limit: 3, want: "ééé"},
		{name: "cut on a rune boundary", give: "a€€€", limit: 2, want: "a€"},
		{name: "no space left by a cut", give: "abc def", limit: 4, want: "abc"},
		{name: "space at the limit is dropped", give: "abc d", limit: 4, want: "abc"},
		{name: "exactly at the limit", give: "abcd", limit: 4, want: "abcd"},
		{name: "white space does not count", give: "   a   b   ", limit: 3, want: "a b"},
		{name: "dropped runes do not count", give: "\x00\x00\x00abc", limit: 3, want: "abc"},
		{name: "zero limit", give: "abc", limit: 0, want: ""},
		{name: "negative limit", give: "abc", limit: -1, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := text.Clean(tt.give, tt.limit)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, text.Clean(got, tt.limit), "Clean is idempotent")
		})
	}
}

func TestCleanDoesNotCopyCleanText(t *testing.T) {
	s := "Route des Grandes Alpes"
	allocs := testing.AllocsPerRun(100, func() { _ = text.Clean(s, text.MaxTitle) })
	assert.Zero(t, allocs)
}

// TestBuilderHoldsNoMoreThanItsLimit writes a 5,000,000-character name
// in the pieces an XML decoder hands over: what is kept stays at the limit.
func TestBuilderHoldsNoMoreThanItsLimit(t *testing.T) {
	t.Parallel()
	var b text.Builder
	b.Reset(text.MaxTitle)
	piece := []byte(strings.Repeat("é", 4096))
	for written := 0; written < 5_000_000; written += 4096 {
		n, err := b.Write(piece)
		require.NoError(t, err)
		require.Equal(t, len(piece), n)
	}

	got := b.String()

	assert.Equal(t, text.MaxTitle, utf8.RuneCountInString(got))
	assert.True(t, b.Cut())
	assert.LessOrEqual(t, len(got), text.MaxTitle*utf8.UTFMax)
}

func TestBuilderJoinsRunesSplitAcrossPieces(t *testing.T) {
	t.Parallel()
	s := "a€b😀c\xffd  e"
	want := text.Clean(s, 100)
	for i := 0; i <= len(s); i++ {
		for j := i; j <= len(s); j++ {
			var b text.Builder
			b.Reset(100)
			b.WriteString(s[:i])
			b.Write([]byte(s[i:j]))
			b.WriteString(s[j:])
			require.Equal(t, want, b.String(), "pieces %q %q %q", s[:i], s[i:j], s[j:])
		}
	}
}

func TestBuilderEndsAnIncompleteRune(t *testing.T) {
	t.Parallel()
	var b text.Builder
	b.Reset(10)
	b.WriteString("ab\xe2\x82")
	assert.Equal(t, "ab\uFFFD", b.String())
	assert.False(t, b.Cut())
}

func TestBuilderReset(t *testing.T) {
	t.Parallel()
	var b text.Builder
	b.Reset(2)
	b.WriteString("abc")
	require.True(t, b.Cut())
	b.Reset(5)
	b.WriteString(" xyz ")
	assert.Equal(t, "xyz", b.String())
	assert.False(t, b.Cut())
}

// FuzzClean checks the rule on any input, given whole or in two pieces.
func FuzzClean(f *testing.F) {
	for _, s := range []string{
		"", "Tour du Mont Blanc", "  a  b  ", "a\x00b", "\u202Eevil", "\xff\xfe", "é€😀", "a\u00a0\u3000b",
		strings.Repeat("x", 300), "\uFEFF\t\r\n",
	} {
		f.Add(s, 10, 3)
	}
	f.Fuzz(func(t *testing.T, s string, limit, split int) {
		limit %= 1000
		got := text.Clean(s, limit)

		require.True(t, utf8.ValidString(got), "invalid UTF-8 %q", got)
		require.LessOrEqual(t, utf8.RuneCountInString(got), max(limit, 0))
		require.False(t, strings.HasPrefix(got, " ") || strings.HasSuffix(got, " "), "%q", got)
		require.NotContains(t, got, "  ")
		for _, r := range got {
			require.False(t, r != ' ' && unicode.IsSpace(r), "white space %U kept", r)
			require.False(t, unicode.Is(unicode.Cc, r), "control %U kept", r)
		}
		require.Equal(t, got, text.Clean(got, limit), "not idempotent")

		// The cut is the start of the whole cleaned text.
		whole := text.Clean(s, len(s)+1)
		require.True(t, strings.HasPrefix(whole, got), "%q is not the start of %q", got, whole)

		split = (split%(len(s)+1) + len(s) + 1) % (len(s) + 1)
		var b text.Builder
		b.Reset(limit)
		b.Write([]byte(s[:split]))
		b.WriteString(s[split:])
		require.Equal(t, got, b.String(), "pieces %q %q", s[:split], s[split:])
	})
}
