package places_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cairn.dev/cairn/modules/route/places"
)

func TestFold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give string
		want string
	}{
		{give: "Besançon", want: "besancon"},
		{give: "München", want: "munchen"},
		{give: "MÜNCHEN", want: "munchen"},
		{give: "Saint-Étienne", want: "saint etienne"},
		{give: "  L'Haÿ-les-Roses ", want: "l hay les roses"},
		{give: "Straße", want: "strasse"},
		{give: "Łódź", want: "lodz"},
		{give: "Ærøskøbing", want: "aeroskobing"},
		{give: "Œuilly", want: "oeuilly"},
		{give: "İstanbul", want: "istanbul"},
		{give: "ﬁnale", want: "finale"}, // a ligature, a compatibility form
		{give: "Αθήνα", want: "αθηνα"},
		{give: "東京", want: "東京"},
		{give: "Frankfurt (Oder)", want: "frankfurt oder"},
		{give: "St. Gallen", want: "st gallen"},
		{give: "-- , .", want: ""},
		{give: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, places.Fold(tt.give))
		})
	}
}

func TestClampLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give int
		want int
	}{
		{give: 0, want: places.DefaultLimit},
		{give: -3, want: 1},
		{give: 1, want: 1},
		{give: 7, want: 7},
		{give: 10, want: 10},
		{give: 11, want: places.MaxLimit},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, places.ClampLimit(tt.give), "limit %d", tt.give)
	}
}

func TestTypeFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give int
		want string
	}{
		{give: 0, want: places.TypePlace},
		{give: 1000, want: places.TypeVillage},
		{give: 9999, want: places.TypeVillage},
		{give: 10_000, want: places.TypeTown},
		{give: 99_999, want: places.TypeTown},
		{give: 100_000, want: places.TypeCity},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, places.TypeFor(tt.give), "population %d", tt.give)
	}
}
