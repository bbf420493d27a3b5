package decimate_test

import (
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

func BenchmarkSimplifyLong(b *testing.B) {
	route := routefixture.Long()
	b.ReportAllocs()
	for b.Loop() {
		decimate.Simplify(route, decimate.Tolerance)
	}
}
