package poi_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/poi"
)

func TestEstimatePrice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		category string
		give     poi.Tags
		want     poi.Price
	}{
		// The brackets of pipeline.md §7.
		{name: "camp site", category: poi.TypeCampSite, want: poi.Price{Min: 8, Max: 25}},
		{name: "hostel", category: poi.TypeHostel, want: poi.Price{Min: 20, Max: 35}},
		{name: "alpine hut", category: poi.TypeAlpineHut, want: poi.Price{Min: 25, Max: 45}},
		{name: "chalet", category: poi.TypeChalet, want: poi.Price{Min: 30, Max: 70}},
		{name: "guest house", category: poi.TypeGuestHouse, want: poi.Price{Min: 40, Max: 80}},
		{name: "hotel", category: poi.TypeHotel, want: poi.Price{Min: 50, Max: 120}},
		{name: "wilderness hut", category: poi.TypeWildernessHut, want: poi.Price{Min: 0, Max: 10}},
		{name: "manual other", category: "other", want: poi.Price{}},
		{name: "fee=yes keeps the bracket", category: poi.TypeHostel, give: poi.Tags{"fee": "yes"}, want: poi.Price{Min: 20, Max: 35}},

		// Backpackers' camp sites.
		{name: "backpack=yes", category: poi.TypeCampSite, give: poi.Tags{"backpack": "yes"}, want: poi.Price{Min: 8, Max: 15}},
		{name: "tents=yes", category: poi.TypeCampSite, give: poi.Tags{"tents": "Yes"}, want: poi.Price{Min: 8, Max: 15}},
		{name: "tents=no", category: poi.TypeCampSite, give: poi.Tags{"tents": "no"}, want: poi.Price{Min: 8, Max: 25}},
		{name: "backpack on a hostel", category: poi.TypeHostel, give: poi.Tags{"backpack": "yes"}, want: poi.Price{Min: 20, Max: 35}},

		// Stars lift the floor by 25 % of the span each above 2, 75 % at most.
		{name: "1 star", category: poi.TypeHotel, give: poi.Tags{"stars": "1"}, want: poi.Price{Min: 50, Max: 120}},
		{name: "2 stars", category: poi.TypeHotel, give: poi.Tags{"stars": "2"}, want: poi.Price{Min: 50, Max: 120}},
		{name: "3 stars", category: poi.TypeHotel, give: poi.Tags{"stars": "3"}, want: poi.Price{Min: 67.5, Max: 120}},
		{name: "4 superior", category: poi.TypeHotel, give: poi.Tags{"stars": "4S"}, want: poi.Price{Min: 85, Max: 120}},
		{name: "5 stars", category: poi.TypeHotel, give: poi.Tags{"stars": "5"}, want: poi.Price{Min: 102.5, Max: 120}},
		{name: "7 stars capped", category: poi.TypeHotel, give: poi.Tags{"stars": "7"}, want: poi.Price{Min: 102.5, Max: 120}},
		{name: "3 stars guest house", category: poi.TypeGuestHouse, give: poi.Tags{"stars": "3"}, want: poi.Price{Min: 50, Max: 80}},
		{name: "stars unreadable", category: poi.TypeHotel, give: poi.Tags{"stars": "yes"}, want: poi.Price{Min: 50, Max: 120}},

		// Exact prices.
		{name: "charge", category: poi.TypeCampSite, give: poi.Tags{"charge": "12 EUR"}, want: poi.Price{Min: 12, Max: 12, Exact: true}},
		{name: "charge decimal comma", category: poi.TypeAlpineHut, give: poi.Tags{"charge": "32,50 €/night"}, want: poi.Price{Min: 32.5, Max: 32.5, Exact: true}},
		{name: "charge range", category: poi.TypeHostel, give: poi.Tags{"charge": "EUR 18-24"}, want: poi.Price{Min: 18, Max: 24, Exact: true}},
		{name: "charge without currency", category: poi.TypeHostel, give: poi.Tags{"charge": "25"}, want: poi.Price{Min: 25, Max: 25, Exact: true}},
		{name: "charge beats stars", category: poi.TypeHotel, give: poi.Tags{"charge": "89 EUR", "stars": "4"}, want: poi.Price{Min: 89, Max: 89, Exact: true}},
		{name: "charge beats fee=no", category: poi.TypeCampSite, give: poi.Tags{"charge": "5 EUR", "fee": "no"}, want: poi.Price{Min: 5, Max: 5, Exact: true}},
		{name: "numeric fee", category: poi.TypeCampSite, give: poi.Tags{"fee": "9"}, want: poi.Price{Min: 9, Max: 9, Exact: true}},
		{name: "fee with currency", category: poi.TypeAlpineHut, give: poi.Tags{"fee": "30 EUR"}, want: poi.Price{Min: 30, Max: 30, Exact: true}},
		{name: "fee=no", category: poi.TypeWildernessHut, give: poi.Tags{"fee": "no"}, want: poi.Price{Exact: true}},
		{name: "fee=No on a hotel", category: poi.TypeHotel, give: poi.Tags{"fee": " No "}, want: poi.Price{Exact: true}},

		// Another currency is not converted: the bracket stands in.
		{name: "charge in CHF", category: poi.TypeAlpineHut, give: poi.Tags{"charge": "CHF 45"}, want: poi.Price{Min: 25, Max: 45}},
		{name: "charge in pounds", category: poi.TypeHostel, give: poi.Tags{"charge": "£20"}, want: poi.Price{Min: 20, Max: 35}},
		{name: "charge in kroner", category: poi.TypeCampSite, give: poi.Tags{"charge": "250 kr"}, want: poi.Price{Min: 8, Max: 25}},
		{name: "charge in złoty", category: poi.TypeHostel, give: poi.Tags{"charge": "60 zł"}, want: poi.Price{Min: 20, Max: 35}},
		{name: "charge without a number", category: poi.TypeCampSite, give: poi.Tags{"charge": "donation"}, want: poi.Price{Min: 8, Max: 25}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, poi.EstimatePrice(tt.category, tt.give))
		})
	}
}
