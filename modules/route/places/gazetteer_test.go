package places_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/places"
)

// smallRows is a gazetteer in which each query of TestGazetteerRanking
// meets every kind of match, with populations set so that population alone
// would give the wrong order.
var smallRows = []places.Row{
	{Name: "Paris", Country: "FR", Admin1: "Île-de-France", Lat: 48.85341, Lon: 2.3488, Population: 2_138_551},
	{Name: "Paris", Country: "US", Admin1: "Texas", Lat: 33.66094, Lon: -95.55551, Population: 24_782},
	{Name: "Parisot", Country: "FR", Admin1: "Occitanie", Lat: 44.26, Lon: 1.86, Population: 1_100},
	{Name: "Cormeilles-en-Parisis", Country: "FR", Admin1: "Île-de-France", Lat: 48.97, Lon: 2.2, Population: 24_000},
	{Name: "Villeparisis", Country: "FR", Admin1: "Île-de-France", Lat: 48.94, Lon: 2.61, Population: 26_000},
	{Name: "Lyon", Country: "FR", Admin1: "Auvergne-Rhône-Alpes", Lat: 45.74846, Lon: 4.84671, Population: 472_317},
	{Name: "Lyons", Country: "US", Admin1: "Illinois", Lat: 41.81, Lon: -87.82, Population: 10_722},
	{Name: "Sainte-Foy-lès-Lyon", Country: "FR", Admin1: "Auvergne-Rhône-Alpes", Lat: 45.73, Lon: 4.8, Population: 21_893},
	{Name: "Saint-Étienne", Country: "FR", Admin1: "Auvergne-Rhône-Alpes", Lat: 45.43389, Lon: 4.39, Population: 176_280},
	{Name: "Court-Saint-Étienne", Country: "BE", Admin1: "Wallonia", Lat: 50.63, Lon: 4.57, Population: 9_353},
	{Name: "Besançon", Country: "FR", Admin1: "Bourgogne-Franche-Comté", Lat: 47.24878, Lon: 6.01815, Population: 128_426},
	{Name: "München", Country: "DE", Admin1: "Bavaria", Lat: 48.13743, Lon: 11.57549, Population: 1_260_391},
	{Name: "Münchenstein", Country: "CH", Admin1: "Basel-Landschaft", Lat: 47.52, Lon: 7.61, Population: 11_644},
	{Name: "Garching bei München", Country: "DE", Admin1: "Bavaria", Lat: 48.25, Lon: 11.65, Population: 15_303},
	{Name: "Schwabmünchen", Country: "DE", Admin1: "Bavaria", Lat: 48.18, Lon: 10.76, Population: 13_232},
	{Name: "Nowhere Junction", Country: "us", Lat: 40, Lon: -100},
}

func setupGazetteer(t *testing.T, rows []places.Row) *places.Gazetteer {
	t.Helper()
	return places.NewGazetteer(rows)
}

func names(ps []places.Place) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.DisplayName
	}
	return out
}

func TestGazetteerRanking(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give string
		want []string
	}{
		{
			// exact by population, then prefix, word prefix, substring:
			// Parisot (1,100) before Villeparisis (26,000).
			give: "paris",
			want: []string{
				"Paris, Île-de-France, FR", "Paris, Texas, US", "Parisot, Occitanie, FR",
				"Cormeilles-en-Parisis, Île-de-France, FR", "Villeparisis, Île-de-France, FR",
			},
		},
		{give: "  PARIS ", want: []string{
			"Paris, Île-de-France, FR", "Paris, Texas, US", "Parisot, Occitanie, FR",
			"Cormeilles-en-Parisis, Île-de-France, FR", "Villeparisis, Île-de-France, FR",
		}},
		{give: "lyon", want: []string{
			"Lyon, Auvergne-Rhône-Alpes, FR", "Lyons, Illinois, US", "Sainte-Foy-lès-Lyon, Auvergne-Rhône-Alpes, FR",
		}},
		{give: "munchen", want: []string{
			"München, Bavaria, DE", "Münchenstein, Basel-Landschaft, CH",
			"Garching bei München, Bavaria, DE", "Schwabmünchen, Bavaria, DE",
		}},
		{give: "Besancon", want: []string{"Besançon, Bourgogne-Franche-Comté, FR"}},
		{give: "besançon", want: []string{"Besançon, Bourgogne-Franche-Comté, FR"}},
		{give: "saint etienne", want: []string{
			"Saint-Étienne, Auvergne-Rhône-Alpes, FR", "Court-Saint-Étienne, Wallonia, BE",
		}},
		{give: "Saint-Étienne", want: []string{
			"Saint-Étienne, Auvergne-Rhône-Alpes, FR", "Court-Saint-Étienne, Wallonia, BE",
		}},
		{give: "etienne", want: []string{
			"Saint-Étienne, Auvergne-Rhône-Alpes, FR", "Court-Saint-Étienne, Wallonia, BE",
		}},
		{give: "garching bei", want: []string{"Garching bei München, Bavaria, DE"}},
		{give: "nowhere", want: []string{"Nowhere Junction, US"}},
		{give: "atlantis", want: []string{}},
	}
	g := setupGazetteer(t, smallRows)
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			got, err := g.Search(context.Background(), tt.give, places.MaxLimit)
			require.NoError(t, err)
			assert.Equal(t, tt.want, names(got))
		})
	}
}

func TestGazetteerPlace(t *testing.T) {
	t.Parallel()
	g := setupGazetteer(t, smallRows)

	got, err := g.Search(context.Background(), "lyon", 1)
	require.NoError(t, err)
	assert.Equal(t, []places.Place{{
		Name:        "Lyon",
		DisplayName: "Lyon, Auvergne-Rhône-Alpes, FR",
		Lat:         45.74846,
		Lon:         4.84671,
		Type:        places.TypeCity,
		Country:     "FR",
		Population:  472_317,
	}}, got)

	got, err = g.Search(context.Background(), "nowhere junction", 1)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, places.TypePlace, got[0].Type, "no population known")
	assert.Equal(t, "US", got[0].Country, "country codes are upper-cased")
}

func TestGazetteerLimit(t *testing.T) {
	t.Parallel()
	rows := make([]places.Row, 12)
	for i := range rows {
		rows[i] = places.Row{Name: fmt.Sprintf("Town %02d", i), Country: "FR", Population: 20_000 - i}
	}
	tests := []struct {
		give int
		want int
	}{
		{give: 0, want: places.DefaultLimit},
		{give: -1, want: 1},
		{give: 1, want: 1},
		{give: 3, want: 3},
		{give: 10, want: 10},
		{give: 50, want: places.MaxLimit},
	}
	g := setupGazetteer(t, rows)
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.give), func(t *testing.T) {
			t.Parallel()
			got, err := g.Search(context.Background(), "town", tt.give)
			require.NoError(t, err)
			require.Len(t, got, tt.want)
			assert.Equal(t, "Town 00", got[0].Name, "largest first among equal prefix matches")
		})
	}
}

func TestGazetteerRefusesQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give string
		want error
	}{
		{give: "", want: places.ErrEmptyQuery},
		{give: "   ", want: places.ErrEmptyQuery},
		{give: " -,'. ", want: places.ErrEmptyQuery},
		{give: strings.Repeat("a", places.MaxQueryBytes+1), want: places.ErrQueryTooLong},
	}
	g := setupGazetteer(t, smallRows)
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%.10q", tt.give), func(t *testing.T) {
			t.Parallel()
			_, err := g.Search(context.Background(), tt.give, 5)
			assert.ErrorIs(t, err, tt.want)
		})
	}
}

func TestGazetteerCancelledContext(t *testing.T) {
	t.Parallel()
	g := setupGazetteer(t, smallRows)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := g.Search(ctx, "paris", 5)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestGazetteerConcurrentFirstUse(t *testing.T) {
	t.Parallel()
	g := setupGazetteer(t, smallRows)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			got, err := g.Search(context.Background(), "lyon", 1)
			assert.NoError(t, err)
			assert.Equal(t, []string{"Lyon, Auvergne-Rhône-Alpes, FR"}, names(got))
		})
	}
	wg.Wait()
	n, err := g.Len()
	require.NoError(t, err)
	assert.Equal(t, len(smallRows), n)
}

// The embedded data holds GeoNames' own names: "Munich" and "Köln", as
// GeoNames spells them; no alternate names ship.
func TestEmbedded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give        string
		wantDisplay string
		wantType    string
		wantLat     float64
		wantLon     float64
	}{
		{give: "Paris", wantDisplay: "Paris, Île-de-France, FR", wantType: places.TypeCity, wantLat: 48.85, wantLon: 2.35},
		{give: "lyon", wantDisplay: "Lyon, Auvergne-Rhône-Alpes, FR", wantType: places.TypeCity, wantLat: 45.75, wantLon: 4.85},
		{give: "Besancon", wantDisplay: "Besançon, Bourgogne-Franche-Comté, FR", wantType: places.TypeCity, wantLat: 47.25, wantLon: 6.02},
		{give: "munich", wantDisplay: "Munich, Bavaria, DE", wantType: places.TypeCity, wantLat: 48.14, wantLon: 11.58},
		{give: "koln", wantDisplay: "Köln, North Rhine-Westphalia, DE", wantType: places.TypeCity, wantLat: 50.93, wantLon: 6.95},
		{give: "zurich", wantDisplay: "Zürich, Zurich, CH", wantType: places.TypeCity, wantLat: 47.37, wantLon: 8.55},
		{give: "saint etienne", wantDisplay: "Saint-Étienne, Auvergne-Rhône-Alpes, FR", wantType: places.TypeCity, wantLat: 45.43, wantLon: 4.39},
	}
	g := places.Embedded()
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			got, err := g.Search(context.Background(), tt.give, 0)
			require.NoError(t, err)
			require.NotEmpty(t, got)
			assert.Equal(t, tt.wantDisplay, got[0].DisplayName)
			assert.Equal(t, tt.wantType, got[0].Type)
			assert.InDelta(t, tt.wantLat, got[0].Lat, 0.01)
			assert.InDelta(t, tt.wantLon, got[0].Lon, 0.01)
		})
	}
}

func TestEmbeddedFoldsAccents(t *testing.T) {
	t.Parallel()
	got, err := places.Embedded().Search(context.Background(), "munchen", places.MaxLimit)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	for _, p := range got {
		assert.Contains(t, places.Fold(p.Name), "munchen", p.Name)
	}
	assert.Contains(t, names(got), "Garching bei München, Bavaria, DE")
}

func TestEmbeddedSize(t *testing.T) {
	t.Parallel()
	n, err := places.Embedded().Len()
	require.NoError(t, err)
	assert.Greater(t, n, 100_000, "GeoNames lists over 100,000 places of 1,000 inhabitants")
	assert.Same(t, places.Embedded(), places.Embedded(), "one gazetteer for the process")
}

func BenchmarkEmbeddedSearch(b *testing.B) {
	g := places.Embedded()
	if _, err := g.Len(); err != nil { // load outside the timing
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, q := range []struct{ name, q string }{
		{"exact", "paris"},
		{"prefix", "ville"},
		{"word_prefix", "etienne"},
		{"one_letter", "s"},
		{"substring_fallback", "besancon"},
		{"miss", "zzzzq"},
	} {
		b.Run(q.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Search(ctx, q.q, places.DefaultLimit); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
