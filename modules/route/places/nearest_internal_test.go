package places

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// scanNearest is nearest without the longitude bound: every place of the
// latitude band measured.
func (ix *index) scanNearest(lat, lon, km float64) (uint32, bool) {
	band := int32(km / 111.0 * 1e5)
	latE5 := e5(lat)
	best, bestM := uint32(0), km*1000
	found := false
	for i := range ix.recs {
		r := &ix.recs[i]
		if d := r.latE5 - latE5; d > band || d < -band {
			continue
		}
		if m := haversineM(lat, lon, float64(r.latE5)/1e5, float64(r.lonE5)/1e5); m <= bestM {
			best, bestM, found = uint32(i), m, true
		}
	}
	return best, found
}

// TestNearestMatchesTheScan: the longitude bound only skips places that
// cannot be within reach: the embedded gazetteer's nearest place is the
// full scan's, at random positions, beside the antimeridian and near the
// poles, for the reverse lookup's reach and wider ones.
func TestNearestMatchesTheScan(t *testing.T) {
	t.Parallel()
	ix, err := Embedded().load()
	require.NoError(t, err)
	type pos struct{ lat, lon float64 }
	positions := []pos{{45.75, 4.85}, {-18.1, 179.99}, {-18.1, -179.99}, {64.2, -51.7}, {78.2, 15.6}, {89.9, 0}, {-89.9, 10}, {0, 0}, {51.5, -0.1}}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		positions = append(positions, pos{rng.Float64()*170 - 85, rng.Float64()*360 - 180})
	}
	// Around actual places too, where the answer is not "none".
	for range 100 {
		r := ix.recs[rng.IntN(len(ix.recs))]
		positions = append(positions, pos{float64(r.latE5)/1e5 + rng.Float64()*0.4 - 0.2, float64(r.lonE5)/1e5 + rng.Float64()*0.4 - 0.2})
	}
	for _, km := range []float64{MaxReverseKm, 5, 400} {
		for _, p := range positions {
			if p.lon > 180 {
				p.lon -= 360
			}
			if p.lon < -180 {
				p.lon += 360
			}
			wantI, wantOK := ix.scanNearest(p.lat, p.lon, km)
			gotI, gotOK := ix.nearest(p.lat, p.lon, km)
			require.Equal(t, wantOK, gotOK, "(%v, %v) within %v km", p.lat, p.lon, km)
			if wantOK {
				require.Equal(t, ix.recs[wantI].name, ix.recs[gotI].name, "(%v, %v) within %v km", p.lat, p.lon, km)
			}
		}
	}
}

// BenchmarkNearest is one reverse lookup of the embedded gazetteer.
func BenchmarkNearest(b *testing.B) {
	ix, err := Embedded().load()
	require.NoError(b, err)
	for _, scan := range []bool{false, true} {
		name := "bounded"
		if scan {
			name = "scan"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if scan {
					ix.scanNearest(45.3, 7.1, MaxReverseKm)
				} else {
					ix.nearest(45.3, 7.1, MaxReverseKm)
				}
			}
		})
	}
}
