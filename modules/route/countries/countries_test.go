package countries_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/countries"
	"cairn.dev/cairn/modules/route/geo"
)

func TestAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		give geo.Point
		want string
	}{
		{"Lyon", geo.Point{Lat: 45.764, Lon: 4.8357}, "FR"},
		{"Geneva", geo.Point{Lat: 46.2044, Lon: 6.1432}, "CH"},
		{"Annemasse, beside it in France", geo.Point{Lat: 46.1934, Lon: 6.2342}, "FR"},
		{"Brussels", geo.Point{Lat: 50.8503, Lon: 4.3517}, "BE"},
		{"Baarle-Hertog, a Belgian enclave in the Netherlands", geo.Point{Lat: 51.4420, Lon: 4.9260}, "BE"},
		{"Baarle-Nassau around it", geo.Point{Lat: 51.4475, Lon: 4.9345}, "NL"},
		{"Bay of Biscay", geo.Point{Lat: 45.5, Lon: -4.0}, ""},
		{"Ajaccio", geo.Point{Lat: 41.9192, Lon: 8.7386}, "FR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := countries.Embedded().At(tt.give)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}
