package geo_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
)

// dms turns degrees, minutes and seconds into decimal degrees, keeping the sign
// of deg, so published survey coordinates can be written as printed.
func dms(deg, min, sec float64) float64 {
	v := math.Abs(deg) + min/60 + sec/3600
	if math.Signbit(deg) {
		return -v
	}
	return v
}

func TestDistance(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give [2]geo.Point
		want float64 // metres
		tol  float64 // metres
	}{
		{
			// Vincenty's own worked example as published by Geoscience Australia.
			name: "Flinders Peak to Buninyong",
			give: [2]geo.Point{
				{Lat: dms(-37, 57, 3.72030), Lon: dms(144, 25, 29.52440)},
				{Lat: dms(-37, 39, 10.15610), Lon: dms(143, 55, 35.38390)},
			},
			want: 54972.271,
			tol:  0.001,
		},
		{
			// One degree along the equator is a·π/180 exactly.
			name: "one degree of the equator",
			give: [2]geo.Point{{Lat: 0, Lon: 0}, {Lat: 0, Lon: 1}},
			want: 6378137 * math.Pi / 180,
			tol:  0.001,
		},
		{
			// The WGS-84 quarter meridian.
			name: "equator to pole",
			give: [2]geo.Point{{Lat: 0, Lon: 0}, {Lat: 90, Lon: 0}},
			want: 10001965.729,
			tol:  0.001,
		},
		{
			name: "same point",
			give: [2]geo.Point{{Lat: 45.5, Lon: 6.2}, {Lat: 45.5, Lon: 6.2, Ele: 900}},
			want: 0,
			tol:  0,
		},
		{
			// A 20 m step in the Alps, the scale of a recorded track.
			name: "short step",
			give: [2]geo.Point{{Lat: 45.9, Lon: 6.8}, {Lat: 45.9 + 20/111141.0, Lon: 6.8}},
			want: 20,
			tol:  0.01,
		},
		{
			// Vincenty does not converge here; the spherical fallback stays
			// within 0.1 % of the true geodesic (twice the quarter meridian).
			name: "antipodal on the equator",
			give: [2]geo.Point{{Lat: 0, Lon: 0}, {Lat: 0, Lon: 180}},
			want: 2 * 10001965.729,
			tol:  0.001 * 2 * 10001965.729,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, geo.Distance(tt.give[0], tt.give[1]), tt.tol)
			assert.InDelta(t, tt.want, geo.Distance(tt.give[1], tt.give[0]), tt.tol, "symmetric")
		})
	}
}

func TestDistanceIgnoresElevation(t *testing.T) {
	t.Parallel()
	a, b := geo.Point{Lat: 44, Lon: 5}, geo.Point{Lat: 44.01, Lon: 5.01}
	low := geo.Distance(a, b)
	a.Ele, b.Ele = 0, 2000
	assert.Equal(t, low, geo.Distance(a, b))
}

func TestHaversine(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give [2]geo.Point
		want float64
	}{
		{name: "one degree of longitude on the equator", give: [2]geo.Point{{}, {Lon: 1}}, want: geo.EarthRadius * math.Pi / 180},
		{name: "one degree of latitude", give: [2]geo.Point{{Lat: 10}, {Lat: 11}}, want: geo.EarthRadius * math.Pi / 180},
		{name: "antipodes", give: [2]geo.Point{{}, {Lon: 180}}, want: geo.EarthRadius * math.Pi},
		{name: "same point", give: [2]geo.Point{{Lat: 1, Lon: 2}, {Lat: 1, Lon: 2}}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.InDelta(t, tt.want, geo.Haversine(tt.give[0], tt.give[1]), 1e-6)
		})
	}
}

func TestHaversineCloseToDistanceAtRouteScale(t *testing.T) {
	t.Parallel()
	// Proximity tests use the sphere; at a few km it must stay within the
	// ellipsoid's flattening (about 0.5 %) of the real distance.
	a, b := geo.Point{Lat: 48.85, Lon: 2.35}, geo.Point{Lat: 48.87, Lon: 2.40}
	d := geo.Distance(a, b)
	assert.InEpsilon(t, d, geo.Haversine(a, b), 0.005)
}

func TestLength(t *testing.T) {
	t.Parallel()

	a, b, c := geo.Point{Lat: 0, Lon: 0}, geo.Point{Lat: 0, Lon: 1}, geo.Point{Lat: 1, Lon: 1}
	tests := []struct {
		name string
		give []geo.Point
		want float64
	}{
		{name: "nil", give: nil, want: 0},
		{name: "one point", give: []geo.Point{a}, want: 0},
		{name: "two points", give: []geo.Point{a, b}, want: geo.Distance(a, b)},
		{name: "three points", give: []geo.Point{a, b, c}, want: geo.Distance(a, b) + geo.Distance(b, c)},
		{name: "repeated point", give: []geo.Point{a, a, b}, want: geo.Distance(a, b)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tt.want, geo.Length(tt.give), 1e-9)
		})
	}
}

func BenchmarkDistance(b *testing.B) {
	p, q := geo.Point{Lat: 45.9, Lon: 6.8}, geo.Point{Lat: 45.9002, Lon: 6.8001}
	var sink float64
	for b.Loop() {
		sink += geo.Distance(p, q)
	}
	_ = sink
}

func BenchmarkHaversine(b *testing.B) {
	p, q := geo.Point{Lat: 45.9, Lon: 6.8}, geo.Point{Lat: 45.9002, Lon: 6.8001}
	var sink float64
	for b.Loop() {
		sink += geo.Haversine(p, q)
	}
	_ = sink
}

func TestPreparedMatchesDistance(t *testing.T) {
	t.Parallel()
	points := []geo.Point{
		{Lat: 45.9, Lon: 6.8}, {Lat: 45.90018, Lon: 6.80011, Ele: 12}, {Lat: -33.9, Lon: 18.4},
		{Lat: 0, Lon: 179.9}, {Lat: 0, Lon: -179.9}, {Lat: 89.9, Lon: 0}, {Lat: 0, Lon: 0},
	}
	for _, a := range points {
		for _, b := range points {
			require.Equal(t, geo.Distance(a, b), geo.Prepare(a).Distance(geo.Prepare(b)), "%v → %v", a, b)
		}
	}
}
