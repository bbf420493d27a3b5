// Package decimate thins a route with Douglas–Peucker (pipeline.md §3): a
// point is kept when it lies more than the tolerance away from the line
// between the points kept around it.
//
// The line between two points is their section of the ellipsoid by the
// plane through them and the Earth's centre (the great ellipse, within
// centimetres of the geodesic at route scale), and a point's deviation is
// its distance to that plane. That measure is linear in the point's
// Earth-centred position, so the farthest point of a stretch is found on the
// convex hulls of a segment tree (see index) in logarithmic time rather than
// by a scan: Douglas–Peucker's worst case, a route where every split peels
// one turn off a long stretch (a zig-zag), costs O(n log n) instead of O(n²).
// Exact geodesics are left to lengths (geo.Distance).
package decimate

import (
	"context"
	"slices"

	"cairn.dev/cairn/modules/route/geo"
)

// Tolerance is the deviation in metres the pipeline allows: about 25,000
// recorded points become about 1,500.
const Tolerance = 20.0

// degenerate is the chord length, in metres, under which a segment is treated
// as a point (a loop that comes back to its start).
const degenerate = 0.001

// checkEvery is how many segments are examined between two looks at the
// context: a few hundred microseconds of work at most.
const checkEvery = 256

// Simplify returns the points Douglas–Peucker keeps at tolerance metres, in
// order, elevations included. The deviation of a point is its distance to
// the plane through the Earth's centre and the segment's ends; when the ends
// are less than 1 mm apart it is the distance to the start. A point is kept
// when its deviation exceeds tolerance. The first and last points are always
// kept, and routes of two points or fewer come back as they are. The result
// never shares memory with points.
//
// The work is O(n log n) whatever the shape: building the index costs
// O(n log h) and each of the 2k − 1 stretches examined for k kept points
// O(log n · log h), for hulls of h vertices (a few dozen on a recording; see
// maxHull for a route convex at every scale). Memory is about 30 bytes a
// point, at most about 60.
func Simplify(points []geo.Point, tolerance float64) []geo.Point {
	out, _ := SimplifyContext(context.Background(), points, tolerance)
	return out
}

// SimplifyContext is Simplify that stops, returning ctx's error and no
// points, once ctx is done.
func SimplifyContext(ctx context.Context, points []geo.Point, tolerance float64) ([]geo.Point, error) {
	n := len(points)
	if n <= 2 {
		return slices.Clone(points), nil
	}
	pos := make([]geo.Vector, n)
	for i, p := range points {
		pos[i] = geo.ECEF(p)
	}
	idx, err := newIndex(ctx, pos)
	if err != nil {
		return nil, err
	}

	keep := make([]bool, n)
	keep[0], keep[n-1] = true, true
	kept := 2
	type segment struct{ start, end int }
	stack := []segment{{0, n - 1}}
	for step := 0; len(stack) > 0; step++ {
		if step%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.end-s.start < 2 {
			continue
		}
		at, dev := idx.farthest(s.start, s.end, tolerance)
		if dev <= tolerance {
			continue
		}
		keep[at] = true
		kept++
		stack = append(stack, segment{s.start, at}, segment{at, s.end})
	}

	out := make([]geo.Point, 0, kept)
	for i, k := range keep {
		if k {
			out = append(out, points[i])
		}
	}
	return out, nil
}

// measure is the deviation of points from one segment: the distance to the
// plane through the centre and the segment's ends (normal is that plane's
// unit normal), or to the start when the ends coincide.
type measure struct {
	normal geo.Vector
	start  geo.Vector
	point  bool // ends closer than degenerate, or antipodal
}

func newMeasure(a, b geo.Vector) measure {
	chord := b.Sub(a)
	length := chord.Norm()
	if length < degenerate {
		return measure{start: a, point: true}
	}
	// a × (b − a) equals a × b without the cancellation of nearly parallel
	// vectors.
	n := a.Cross(chord)
	size := n.Norm()
	if size <= 1e-12*a.Norm()*length {
		// Antipodal ends: no single plane. Any point off the start will do
		// to cut the stretch in two, and the halves are well defined.
		return measure{start: a, point: true}
	}
	return measure{normal: geo.Vector{X: n.X / size, Y: n.Y / size, Z: n.Z / size}, start: a}
}

func (m measure) of(p geo.Vector) float64 {
	if m.point {
		return p.Sub(m.start).Norm()
	}
	d := m.normal.Dot(p)
	if d < 0 {
		return -d
	}
	return d
}
