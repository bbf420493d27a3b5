package decimate_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/decimate"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/routefixture"
)

// north moves p metres north, east metres east; close enough at test scale,
// where every check measures with geo.Distance anyway.
func offset(p geo.Point, north, east float64) geo.Point {
	return geo.Point{Lat: p.Lat + north/111_132, Lon: p.Lon + east/(111_320*0.7071), Ele: p.Ele}
}

var origin = geo.Point{Lat: 45, Lon: 6, Ele: 300} // cos 45° = 0.7071

func TestSimplifyShortRoutesUnchanged(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give []geo.Point
	}{
		{name: "nil", give: nil},
		{name: "one point", give: []geo.Point{origin}},
		{name: "two points", give: []geo.Point{origin, offset(origin, 1000, 0)}},
		{name: "two equal points", give: []geo.Point{origin, origin}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := decimate.Simplify(tt.give, decimate.Tolerance)
			assert.Equal(t, tt.give, got)
			if len(got) > 0 {
				got[0].Ele = -1
				assert.NotEqual(t, got[0], tt.give[0], "the result must not share memory with the input")
			}
		})
	}
}

func TestSimplifyThreePoints(t *testing.T) {
	t.Parallel()

	end := offset(origin, 2000, 0)
	tests := []struct {
		name     string
		giveEast float64 // the middle point's offset from the chord, metres
		want     int     // points kept
	}{
		{name: "on the chord", giveEast: 0, want: 2},
		{name: "well inside", giveEast: 10, want: 2},
		{name: "just inside", giveEast: 19.5, want: 2},
		{name: "just outside", giveEast: 20.5, want: 3},
		{name: "well outside", giveEast: 300, want: 3},
		{name: "outside on the other side", giveEast: -25, want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mid := offset(origin, 1000, tt.giveEast)
			got := decimate.Simplify([]geo.Point{origin, mid, end}, decimate.Tolerance)
			require.Len(t, got, tt.want)
			assert.Equal(t, origin, got[0])
			assert.Equal(t, end, got[len(got)-1])
		})
	}
}

func TestSimplifyStraightLine(t *testing.T) {
	t.Parallel()
	var line []geo.Point
	for i := range 1001 {
		line = append(line, offset(origin, float64(i)*10, 0))
	}
	assert.Equal(t, []geo.Point{line[0], line[1000]}, decimate.Simplify(line, decimate.Tolerance))
}

func TestSimplifyKeepsZigzagTurns(t *testing.T) {
	t.Parallel()
	route := routefixture.Hills(routefixture.Zigzag(10_000), 100, 4_000)
	got := decimate.Simplify(route, decimate.Tolerance)

	// A turn every ZigzagLeg metres of longitude, on every tenth point.
	perLeg := int(routefixture.ZigzagLeg / routefixture.ZigzagStep)
	var want []geo.Point
	for i := 0; i < len(route); i += perLeg {
		want = append(want, route[i])
	}
	if (len(route)-1)%perLeg != 0 {
		want = append(want, route[len(route)-1])
	}
	assert.Equal(t, want, got, "exactly the turns and the ends, with their elevations")
}

func TestSimplifyClosedLoop(t *testing.T) {
	t.Parallel()
	// A square loop back to its start: the chord is 0, so deviation is the
	// distance to the start and the far corner is kept first.
	corners := []geo.Point{origin, offset(origin, 0, 1000), offset(origin, 1000, 1000), offset(origin, 1000, 0), origin}
	var loop []geo.Point
	for c := range 4 {
		a, b := corners[c], corners[c+1]
		for i := range 20 {
			f := float64(i) / 20
			loop = append(loop, geo.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon), Ele: a.Ele})
		}
	}
	loop = append(loop, origin)

	assert.Equal(t, corners, decimate.Simplify(loop, decimate.Tolerance))
}

func TestSimplifyLongRoute(t *testing.T) {
	t.Parallel()
	route := routefixture.Long()
	got := decimate.Simplify(route, decimate.Tolerance)

	require.Equal(t, route[0], got[0])
	require.Equal(t, route[len(route)-1], got[len(got)-1])
	ratio := float64(len(got)) / float64(len(route))
	assert.Greater(t, ratio, 0.01, "a winding route keeps its bends")
	assert.Less(t, ratio, 0.2, "GPS jitter and straight stretches are dropped")

	// The Douglas–Peucker promise: every dropped point lies within the
	// tolerance of the chord between the kept points around it.
	k := 0
	for i, p := range route {
		if k+1 < len(got) && p == got[k+1] {
			k++
			continue
		}
		if p == got[k] {
			continue
		}
		a, b := got[k], got[k+1]
		dev := height(geo.Distance(a, p), geo.Distance(p, b), geo.Distance(a, b))
		require.LessOrEqualf(t, dev, decimate.Tolerance+0.01, "point %d dropped at %.2f m from its chord", i, dev)
	}
}

// height is the triangle height over side c by the textbook Heron formula,
// written independently of the package's to check it; the two differ by
// rounding only, hence the centimetre of slack where it is used.
func height(a, b, c float64) float64 {
	s := (a + b + c) / 2
	area2 := s * (s - a) * (s - b) * (s - c)
	if area2 <= 0 {
		return 0
	}
	return 2 * math.Sqrt(area2) / c
}

// TestSimplifyEveryShape holds Douglas–Peucker's promise on the shapes that
// stress it: the ends are kept, every dropped point lies within the
// tolerance of the chord between the kept points around it (measured here
// from positions, independently of the package), and no more points are
// kept than textbook Douglas–Peucker keeps.
func TestSimplifyEveryShape(t *testing.T) {
	t.Parallel()
	for _, shape := range routefixture.Shapes() {
		t.Run(shape.Name, func(t *testing.T) {
			t.Parallel()
			route := shape.Points(50_000)
			got := decimate.Simplify(route, decimate.Tolerance)
			require.Equal(t, route[0], got[0])
			require.Equal(t, route[len(route)-1], got[len(got)-1])
			require.GreaterOrEqual(t, len(got), 2)

			k := 0
			for i, p := range route {
				if k+1 < len(got) && p == got[k+1] {
					k++
					continue
				}
				if p == got[k] {
					continue
				}
				dev := offChord(got[k], got[k+1], p)
				require.LessOrEqualf(t, dev, decimate.Tolerance, "point %d dropped at %.3f m from its chord", i, dev)
			}
			// The split points may differ from a scan's where two points are
			// nearly as far (the index measures a node's candidates only),
			// so the count is compared, not the points.
			want := len(reference(route[:5000]))
			assert.InDelta(t, want, len(decimate.Simplify(route[:5000], decimate.Tolerance)), 0.01*float64(want)+1)
		})
	}
}

// reference is textbook Douglas–Peucker by scanning, quadratic at worst.
func reference(route []geo.Point) []geo.Point {
	keep := make([]bool, len(route))
	keep[0], keep[len(route)-1] = true, true
	var split func(s, e int)
	split = func(s, e int) {
		at, worst := -1, decimate.Tolerance
		for i := s + 1; i < e; i++ {
			if d := offChord(route[s], route[e], route[i]); d > worst {
				at, worst = i, d
			}
		}
		if at >= 0 {
			keep[at] = true
			split(s, at)
			split(at, e)
		}
	}
	split(0, len(route)-1)
	var out []geo.Point
	for i, k := range keep {
		if k {
			out = append(out, route[i])
		}
	}
	return out
}

func TestSimplifyStraightShapeKeepsItsEnds(t *testing.T) {
	t.Parallel()
	route := routefixture.Straight(100_000) // 1,000 km
	assert.Equal(t, []geo.Point{route[0], route[len(route)-1]}, decimate.Simplify(route, decimate.Tolerance))
}

func TestSimplifyStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := decimate.SimplifyContext(ctx, routefixture.ZigzagPoints(10_000), decimate.Tolerance)
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, got)
}

// offChord is p's distance in metres from the plane through the Earth's
// centre, a and b, or from a when a and b coincide.
func offChord(a, b, p geo.Point) float64 {
	va, vb, vp := geo.ECEF(a), geo.ECEF(b), geo.ECEF(p)
	if vb.Sub(va).Norm() < 0.001 {
		return vp.Sub(va).Norm()
	}
	n := va.Cross(vb)
	return math.Abs(n.Dot(vp)) / n.Norm()
}

// BenchmarkSimplify decimates every shape at growing sizes; the import
// benchmark of package pacing times the whole step.
func BenchmarkSimplify(b *testing.B) {
	for _, shape := range routefixture.Shapes() {
		for _, n := range []int{10_000, 100_000, 1_000_000} {
			b.Run(fmt.Sprintf("shape=%s/points=%d", shape.Name, n), func(b *testing.B) {
				route := shape.Points(n)
				b.ReportAllocs()
				for b.Loop() {
					decimate.Simplify(route, decimate.Tolerance)
				}
			})
		}
	}
}

func BenchmarkSimplifyLong(b *testing.B) {
	route := routefixture.Long()
	b.ReportAllocs()
	for b.Loop() {
		decimate.Simplify(route, decimate.Tolerance)
	}
}
