package planner_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/planner/plannertest"
)

// TestRefusalsSpeakTheRequestsLanguage: a problem's title, detail and
// reasons follow Accept-Language on both faces, each answer names its
// language (Content-Language), and what describes the API stays English.
func TestRefusalsSpeakTheRequestsLanguage(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	const unknown = "0190a8b0-0000-7000-8000-000000000000"
	tests := []struct {
		lang, wantTitle, wantDetail string
	}{
		{"fr-FR,fr;q=0.9", "Introuvable", "introuvable parmi vos ressources ; listez les vôtres pour trouver le bon identifiant"},
		{"en", "Not Found", "not found among your resources; list yours to find the right id"},
		{"", "Not Found", "not found among your resources; list yours to find the right id"},
		{"de", "Not Found", "not found among your resources; list yours to find the right id"},
	}
	for _, tt := range tests {
		var headers []string
		if tt.lang != "" {
			headers = []string{"Accept-Language", tt.lang}
		}
		res := a.Do(t, "GET", "/trips/"+unknown+"/detail", e.token, nil, headers...)
		require.Equal(t, http.StatusNotFound, res.Status)
		p := res.JSON(t)
		require.Equal(t, tt.wantTitle, p["title"], tt.lang)
		require.Equal(t, tt.wantDetail, p["detail"], tt.lang)
		want := "en"
		if tt.wantTitle == "Introuvable" {
			want = "fr"
		}
		require.Equal(t, want, res.Header.Get("Content-Language"), tt.lang)
	}
	// A violation's reason, in French.
	res := a.Do(t, "POST", "/trips", e.token, map[string]any{"sourceUrl": "http://example.com", "fatigueFactor": 0.7},
		"Accept-Language", "fr", "Idempotency-Key", key())
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, string(res.Body))
	require.Contains(t, string(res.Body), "doit être une adresse https")
	// The OpenAPI document stays English whatever is asked.
	doc := a.Do(t, "GET", "/openapi.json", "", nil, "Accept-Language", "fr")
	require.Equal(t, http.StatusOK, doc.Status)
	require.Contains(t, string(doc.Body), "Read a trip: settings, then one line per day")
	require.Empty(t, doc.Header.Get("Content-Language"))
}
