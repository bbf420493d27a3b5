package geo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBisectedAgreesWithVincenty holds the fallback against Vincenty's
// iteration wherever that converges, on long lines all over the globe.
func TestBisectedAgreesWithVincenty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	checked := 0
	for range 5000 {
		a := Point{Lat: math.Asin(2*rng.Float64()-1) * 180 / math.Pi, Lon: 360*rng.Float64() - 180}
		b := Point{Lat: math.Asin(2*rng.Float64()-1) * 180 / math.Pi, Lon: 360*rng.Float64() - 180}
		pa, pb := Prepare(a), Prepare(b)
		want, ok := vincenty(pa, pb)
		if !ok {
			continue
		}
		got, ok := bisected(pa, pb)
		require.True(t, ok)
		require.InDeltaf(t, want, got, 0.005, "%v → %v", a, b)
		checked++
	}
	require.Greater(t, checked, 4500)
}

func TestBisectedLeavesThePolesToVincenty(t *testing.T) {
	t.Parallel()
	_, ok := bisected(Prepare(Point{Lat: 90}), Prepare(Point{Lat: -10, Lon: 30}))
	require.False(t, ok)
	// Vincenty solves the meridian from a pole at once.
	d, ok := vincenty(Prepare(Point{Lat: 90}), Prepare(Point{Lat: 0, Lon: 30}))
	require.True(t, ok)
	require.InDelta(t, 10001965.729, d, 0.001)
}
