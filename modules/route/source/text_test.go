package source_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/source"
	"cairn.dev/cairn/modules/route/text"
)

// TestFetchBoundsAndCleansTheTitle gives every provider a title of
// 500,000 characters behind white space and control characters: the
// route's title follows the rule of package text, at text.MaxTitle.
func TestFetchBoundsAndCleansTheTitle(t *testing.T) {
	t.Parallel()
	huge := " \t\u0085\u202E\u007f" + strings.Repeat("é", 500_000)
	want := strings.Repeat("é", text.MaxTitle)

	tests := []struct {
		name string
		url  string
		path string
		give func(t *testing.T, title string) string
	}{
		{
			name: "komoot tour", url: "https://www.komoot.com/tour/1", path: "/tour/1",
			give: func(t *testing.T, title string) string { return komootTour(t, title, trackA) },
		},
		{
			name: "strava route", url: "https://www.strava.com/routes/1", path: "/routes/1/export_gpx",
			give: func(t *testing.T, title string) string { return stravaGPX(t, title, trackA) },
		},
		{
			name: "ridewithgps route", url: "https://ridewithgps.com/routes/1", path: "/routes/1.json",
			give: func(t *testing.T, title string) string { return rwgpsJSON(t, title, trackA) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, p := setup(t, source.Options{})
			p.set(tt.path, answer{body: tt.give(t, huge)})

			got, err := f.Fetch(context.Background(), tt.url)

			require.NoError(t, err)
			assert.Equal(t, text.MaxTitle, utf8.RuneCountInString(got.Title))
			assert.Equal(t, want, got.Title)
		})
	}

	t.Run("komoot collection", func(t *testing.T) {
		t.Parallel()
		f, p := setup(t, source.Options{})
		p.set("/collection/9", answer{body: komootCollection(t, huge, map[string]any{"id": 11, "type": "tour_planned"})})
		p.set("/tour/11", answer{body: komootTour(t, "Day 1", trackA)})

		got, err := f.Fetch(context.Background(), "https://www.komoot.com/collection/9")

		require.NoError(t, err)
		assert.Equal(t, want, got.Title)
	})
}

func TestFetchCleansTheTitle(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})
	p.set("/routes/456.json", answer{body: rwgpsJSON(t, "\u00a0Route\t des\r\nGrandes\x7f\x00 Alpes\u009b ", trackB)})

	got, err := f.Fetch(context.Background(), "https://ridewithgps.com/routes/456")

	require.NoError(t, err)
	assert.Equal(t, "Route des Grandes Alpes", got.Title)
}
