package decimate

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/routefixture"
)

// TestFarthestAgreesWithAScan holds the index against measuring every point,
// on every shape and on random stretches: whenever some point lies beyond
// the tolerance, the one returned does too, and it is at most a hair less far
// than the farthest (by the projection's factor: under 10⁻³ across the nodes
// of a route a few hundred kilometres long, at most 1.5 % on the widest).
func TestFarthestAgreesWithAScan(t *testing.T) {
	t.Parallel()

	type shape struct {
		name   string
		points []geo.Point
		slack  float64 // relative: 1 − cos of the widest node's radius
	}
	var shapes []shape
	for _, s := range routefixture.Shapes() {
		shapes = append(shapes, shape{s.Name, s.Points(30_000), 1e-3})
	}
	shapes = append(shapes,
		shape{"circle without jitter", circle(20_000, 0.02), 1e-3},
		shape{"equator zig-zag", routefixture.Zigzag(1_000_000), 1e-3},
		shape{"scattered points", scattered(20_000), 1 - capCos},
	)
	for _, tt := range shapes {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pos := make([]geo.Vector, len(tt.points))
			for i, p := range tt.points {
				pos[i] = geo.ECEF(p)
			}
			idx, err := newIndex(context.Background(), pos)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(1, uint64(len(tt.points))))
			opened := 0
			for range 3000 {
				start := rng.IntN(len(pos) - 2)
				end := start + 2 + rng.IntN(len(pos)-start-2)
				if rng.IntN(4) == 0 {
					end = start + 2 + rng.IntN(min(400, len(pos)-start-2))
				}
				m := newMeasure(pos[start], pos[end])
				_, want := idx.scan(start+1, end, m)
				check := func(tol float64) float64 {
					at, got := idx.farthest(start, end, tol)
					require.Greater(t, at, start)
					require.Less(t, at, end)
					require.Equal(t, m.of(pos[at]), got, "the deviation is the point's own")
					if want > tol {
						require.Greater(t, got, tol, "(%d, %d): a point beyond %.6f m exists, %.6f m away", start, end, tol, want)
					}
					require.GreaterOrEqual(t, got, want*(1-tt.slack)-1e-6, "(%d, %d)", start, end)
					return got
				}
				if got := check(Tolerance); got < want {
					// The offered point falls short of the farthest: with the
					// tolerance between them, the nodes must be opened.
					check((got + want) / 2)
					opened++
				}
			}
			t.Logf("%d of 3000 stretches offered less than the farthest", opened)
		})
	}
}

// circle is n points on a circle of radius degrees around (45°N, 6°E), back
// to the start: every point is on every hull.
func circle(n int, radius float64) []geo.Point {
	points := make([]geo.Point, n)
	for i := range points {
		s, c := math.Sincos(2 * math.Pi * float64(i) / float64(n-1))
		points[i] = geo.Point{Lat: 45 + radius*c, Lon: 6 + radius*s/math.Cos(45*math.Pi/180)}
	}
	return points
}

// scattered is n points anywhere in a 10° square: no route, but a shape the
// index must still answer for.
func scattered(n int) []geo.Point {
	rng := rand.New(rand.NewPCG(3, 30))
	points := make([]geo.Point, n)
	for i := range points {
		points[i] = geo.Point{Lat: 40 + 10*rng.Float64(), Lon: 10*rng.Float64() - 5}
	}
	return points
}

func TestMeasure(t *testing.T) {
	t.Parallel()
	a := geo.ECEF(geo.Point{Lat: 0, Lon: 0})
	b := geo.ECEF(geo.Point{Lat: 0, Lon: 1})
	north := geo.ECEF(geo.Point{Lat: 20.0 / 110_574, Lon: 0.5})

	tests := []struct {
		name      string
		giveStart geo.Vector
		giveEnd   geo.Vector
		give      geo.Vector
		want      float64
		tol       float64
	}{
		{name: "on the segment", giveStart: a, giveEnd: b, give: geo.ECEF(geo.Point{Lon: 0.3}), want: 0, tol: 1e-6},
		{name: "20 m north of the equator", giveStart: a, giveEnd: b, give: north, want: 20, tol: 0.001},
		{name: "ends that coincide: distance to the start", giveStart: a, giveEnd: a, give: b, want: b.Sub(a).Norm(), tol: 1e-9},
		{name: "antipodal ends: distance to the start", giveStart: a, giveEnd: geo.ECEF(geo.Point{Lon: 180}), give: b, want: b.Sub(a).Norm(), tol: 1e-9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.InDelta(t, tt.want, newMeasure(tt.giveStart, tt.giveEnd).of(tt.give), tt.tol)
		})
	}
}
