package alerts_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
)

// Reference places.
var (
	paris        = geo.Point{Lat: 48.8566, Lon: 2.3522}
	oslo         = geo.Point{Lat: 59.9139, Lon: 10.7522}
	tromso       = geo.Point{Lat: 69.6492, Lon: 18.9553}
	longyearbyen = geo.Point{Lat: 78.2232, Lon: 15.6267}
	quito        = geo.Point{Lat: -0.1807, Lon: -78.4678}
	ushuaia      = geo.Point{Lat: -54.8019, Lon: -68.3030}
	auckland     = geo.Point{Lat: -36.8485, Lon: 174.7633}
	honolulu     = geo.Point{Lat: 21.3069, Lon: -157.8583}
)

// TestCivilDusk holds CivilDusk to an independent high-precision ephemeris:
// PyEphem 4.1.4 (libastro), next setting of the sun's centre through −6°
// with refraction off, searched from local mean noon of the day. Values are
// UTC, to the second. The NOAA algorithm is expected within a minute.
func TestCivilDusk(t *testing.T) {
	t.Parallel()

	type give struct {
		at    geo.Point
		year  int
		month time.Month
		day   int
	}
	tests := []struct {
		name string
		give give
		want time.Time
	}{
		{name: "Paris, June solstice (22:40 CEST)", give: give{paris, 2025, time.June, 21}, want: utc(2025, 6, 21, 20, 40, 34)},
		{name: "Paris, December solstice (17:33 CET)", give: give{paris, 2025, time.December, 21}, want: utc(2025, 12, 21, 16, 33, 28)},
		{name: "Paris, day clocks go forward", give: give{paris, 2026, time.March, 29}, want: utc(2026, 3, 29, 18, 48, 42)},
		{name: "Oslo, June solstice (00:28 CEST, the next day)", give: give{oslo, 2025, time.June, 21}, want: utc(2025, 6, 21, 22, 28, 0)},
		{name: "Oslo, December solstice", give: give{oslo, 2025, time.December, 21}, want: utc(2025, 12, 21, 15, 9, 37)},
		{name: "Tromsø, no sunrise but a civil twilight", give: give{tromso, 2025, time.December, 21}, want: utc(2025, 12, 21, 12, 53, 15)},
		{name: "Quito, equator", give: give{quito, 2025, time.September, 1}, want: utc(2025, 9, 1, 23, 37, 47)},
		{name: "Ushuaia, southern summer", give: give{ushuaia, 2025, time.December, 21}, want: utc(2025, 12, 22, 2, 8, 55)},
		{name: "Auckland, east of Greenwich", give: give{auckland, 2025, time.January, 15}, want: utc(2025, 1, 15, 8, 11, 50)},
		{name: "Honolulu, far west", give: give{honolulu, 2025, time.July, 4}, want: utc(2025, 7, 5, 5, 42, 21)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, sky := alerts.CivilDusk(tt.give.at, tt.give.year, tt.give.month, tt.give.day)
			require.Equal(t, alerts.SkyDusk, sky)
			assert.WithinDuration(t, tt.want, got, time.Minute)
		})
	}
}

// TestCivilDuskLocal checks the figures a rider reads, in local time.
func TestCivilDuskLocal(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		give  time.Month
		zone  string
		at    geo.Point
		want  string
		day21 bool // whether the dusk is still on the 21st, local time
	}{
		{name: "Paris, June", give: time.June, zone: "Europe/Paris", at: paris, want: "22:40", day21: true},
		{name: "Paris, December", give: time.December, zone: "Europe/Paris", at: paris, want: "17:33", day21: true},
		{name: "Oslo, June", give: time.June, zone: "Europe/Oslo", at: oslo, want: "00:28", day21: false},
		{name: "Oslo, December", give: time.December, zone: "Europe/Oslo", at: oslo, want: "16:09", day21: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, sky := alerts.CivilDusk(tt.at, 2025, tt.give, 21)
			require.Equal(t, alerts.SkyDusk, sky)
			local := got.In(zoneIn(t, tt.zone).loc)
			assert.Equal(t, tt.want, local.Format("15:04"))
			assert.Equal(t, tt.day21, local.Day() == 21)
		})
	}
}

// TestCivilDuskPolar covers the days with no dusk to arrive after.
func TestCivilDuskPolar(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name  string
		give  geo.Point
		month time.Month
		want  alerts.Sky
	}{
		{name: "Tromsø, midnight sun", give: tromso, month: time.June, want: alerts.SkyPolarDay},
		{name: "Longyearbyen, midnight sun", give: longyearbyen, month: time.June, want: alerts.SkyPolarDay},
		{name: "Longyearbyen, polar night", give: longyearbyen, month: time.December, want: alerts.SkyPolarNight},
		{name: "Antarctic coast, southern summer", give: geo.Point{Lat: -77.85, Lon: 166.67}, month: time.December, want: alerts.SkyPolarDay},
		{name: "Antarctic coast, southern winter", give: geo.Point{Lat: -77.85, Lon: 166.67}, month: time.June, want: alerts.SkyPolarNight},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			got, sky := alerts.CivilDusk(tt.give, 2025, tt.month, 21)
			assert.Equal(t, tt.want, sky)
			assert.True(t, got.IsZero())
		})
	}
}

func utc(year int, month time.Month, day, hour, minute, second int) time.Time {
	return time.Date(year, month, day, hour, minute, second, 0, time.UTC)
}
