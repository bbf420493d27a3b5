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
			// Vincenty does not converge here; the geodesic runs over a pole,
			// twice the quarter meridian.
			name: "antipodal on the equator",
			give: [2]geo.Point{{Lat: 0, Lon: 0}, {Lat: 0, Lon: 180}},
			want: 2 * 10001965.729,
			tol:  0.001,
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

// TestDistanceLongLines holds the long and nearly antipodal lines, where
// Vincenty's iteration is slow or fails, against GeographicLib (Karney's
// algorithm, accurate to 15 nm). The first two are its published examples:
// Wellington to Salamanca from its documentation, and the inverse problem of
// Karney, "Algorithms for geodesics" (J. Geodesy 87, 2013, §9); the others
// were computed with its GeodSolve 2.1.2.
func TestDistanceLongLines(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give [4]float64 // lat1, lon1, lat2, lon2
		want float64    // metres
	}{
		{name: "Wellington to Salamanca", give: [4]float64{-41.32, 174.81, 40.96, -5.50}, want: 19959679.267},
		{name: "Karney's inverse example", give: [4]float64{-30, 0, 29.9, 179.8}, want: 19989832.828},
		{name: "JFK to Singapore", give: [4]float64{40.6, -73.8, 1.35, 103.99}, want: 15353149.363},
		{name: "Perth to its far side", give: [4]float64{-32.06, 115.74, 32.11195529, -63.95925278}, want: 19990773.630},
		{name: "equator, 179.5° apart", give: [4]float64{0, 0, 0, 179.5}, want: 19980861.909},
		{name: "equator, 179.9° apart", give: [4]float64{0, 0, 0, 179.9}, want: 20003008.422},
		{name: "just off the equator", give: [4]float64{0, 0, 0.001, 179.999}, want: 20003820.792},
		{name: "across the equator", give: [4]float64{0.5, 0, -0.5, 179.7}, want: 19995624.890},
		{name: "the Alps to their antipodes", give: [4]float64{45, 6, -45.01, -174.02}, want: 20002784.398},
		{name: "near the poles", give: [4]float64{89, 0, -89.5, 179}, want: 19948067.564},
		{name: "exactly antipodal", give: [4]float64{10, 20, -10, -160}, want: 20003931.459},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := geo.Point{Lat: tt.give[0], Lon: tt.give[1]}, geo.Point{Lat: tt.give[2], Lon: tt.give[3]}
			assert.InDelta(t, tt.want, geo.Distance(a, b), 0.005)
			assert.InDelta(t, tt.want, geo.Distance(b, a), 0.005, "symmetric")
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
