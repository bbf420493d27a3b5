package geo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSeriesAgreesWithVincenty holds the two methods Distance combines
// against each other where the series is used, over every latitude and
// azimuth, the poles and the antimeridian included.
func TestSeriesAgreesWithVincenty(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		give     float64 // line length, metres
		giveLat  float64 // largest |latitude| of the first point
		wantDiff float64 // metres
	}{
		{name: "GPS steps", give: 20, giveLat: 89.9, wantDiff: 1e-5},
		{name: "decimated legs", give: 500, giveLat: 89.9, wantDiff: 1e-5},
		{name: "town to town", give: 10_000, giveLat: 89.9, wantDiff: 1e-5},
		{name: "up to the limit", give: 95_000, giveLat: 89, wantDiff: 1e-5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(7, uint64(tt.give)))
			checked := 0
			for range 5000 {
				lat := (2*rng.Float64() - 1) * tt.giveLat
				lon := 360*rng.Float64() - 180
				az := 2 * math.Pi * rng.Float64()
				d := tt.give * (0.5 + rng.Float64()/2)
				b := Point{Lat: lat + d*math.Cos(az)/111_000, Lon: lon + d*math.Sin(az)/(111_000*math.Cos(radians(lat)))}
				if math.Abs(b.Lat) > 90 {
					b.Lat = math.Copysign(180-math.Abs(b.Lat), b.Lat) // over the pole
					b.Lon += 180
				}
				b.Lon = math.Mod(b.Lon+540, 360) - 180

				pa, pb := Prepare(Point{Lat: lat, Lon: lon}), Prepare(b)
				dx, dy, dz := pb.x-pa.x, pb.y-pa.y, pb.z-pa.z
				chordSq := dx*dx + dy*dy + dz*dz
				if chordSq >= seriesLimit*seriesLimit {
					continue
				}
				want, ok := vincenty(pa, pb)
				require.True(t, ok)
				got := arcFromChord(pa, pb, dx, dy, dz, chordSq)
				require.InDeltaf(t, want, got, tt.wantDiff, "(%v, %v) → %v", lat, lon, b)
				checked++
			}
			require.Greater(t, checked, 4500, "most lines must fall within the series' range")
		})
	}
}

func TestSeriesAcrossAPole(t *testing.T) {
	t.Parallel()
	// Two points 1 km either side of the north pole: the ends' mean
	// east and north vanish, and the azimuth must not turn into NaN.
	a, b := Prepare(Point{Lat: 90 - 0.009, Lon: 10}), Prepare(Point{Lat: 90 - 0.009, Lon: -170})
	got := a.Distance(b)
	want, ok := vincenty(a, b)
	require.True(t, ok)
	require.InDelta(t, want, got, 1e-5)
}
