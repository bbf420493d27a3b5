package alerts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
)

// TestEmbeddedZones checks the time-zone lookup by position on the places the
// sunset tests use, a border town on each side, and the open sea.
func TestEmbeddedZones(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give geo.Point
		want string
	}{
		{name: "Paris", give: paris, want: "Europe/Paris"},
		{name: "Oslo", give: oslo, want: "Europe/Oslo"},
		{name: "Tromsø", give: tromso, want: "Europe/Oslo"},
		{name: "Longyearbyen", give: longyearbyen, want: "Arctic/Longyearbyen"},
		{name: "Honolulu", give: honolulu, want: "Pacific/Honolulu"},
		{name: "Quito", give: quito, want: "America/Guayaquil"},
		{name: "Hendaye, French side", give: geo.Point{Lat: 43.3586, Lon: -1.7747}, want: "Europe/Paris"},
		{name: "Badajoz, Spanish side", give: geo.Point{Lat: 38.8794, Lon: -6.9707}, want: "Europe/Madrid"},
		{name: "Elvas, Portuguese side", give: geo.Point{Lat: 38.8810, Lon: -7.1630}, want: "Europe/Lisbon"},
		{name: "mid-Atlantic", give: geo.Point{Lat: 0, Lon: -30}, want: "Etc/GMT+2"},
	}
	zones := alerts.EmbeddedZones()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			loc, err := zones.Zone(tt.give)
			require.NoError(t, err)
			assert.Equal(t, tt.want, loc.String())
		})
	}
}
