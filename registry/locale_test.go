package registry_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
)

func TestNegotiateLocale(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.SpeakLocales("en", "fr")
	tests := []struct {
		give, want string
	}{
		{"", "en"},
		{"fr", "fr"},
		{"fr-CH, fr;q=0.9, en;q=0.8", "fr"},
		{"de, en;q=0.5", "en"},
		{"de", "en"},
		{"en;q=0.4, fr;q=0.6", "fr"},
		{"FR-be", "fr"},
		{"*", "en"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, reg.Locales().Negotiate(tt.give), tt.give)
	}
}

func TestProblemInTheRequestsLanguage(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.SpeakLocales("en", "fr")
	reg.Translate("fr", map[string]string{"Not Found": "Introuvable", "gone": "parti", "is required": "est requis"})
	e := &registry.Error{Kind: registry.KindNotFound, Detail: "gone", Violations: []registry.Violation{{Field: "x", Reason: "is required"}}}
	p := reg.Locales().Problem(e, "fr")
	require.Equal(t, "Introuvable", p.Title)
	require.Equal(t, "parti", p.Detail)
	require.Equal(t, "est requis", p.Violations[0].Reason)
	require.Equal(t, "is required", e.Violations[0].Reason, "the error itself is left as written")
	require.Equal(t, "gone", reg.Locales().Problem(e, "en").Detail)
	untranslated := reg.Locales().Problem(&registry.Error{Kind: registry.KindInvalid, Detail: "composed 42"}, "fr")
	require.Equal(t, "composed 42", untranslated.Detail, "a text without a translation stays as written")
}
