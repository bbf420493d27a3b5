// Package decimate thins a route with Douglas–Peucker (pipeline.md §3): a
// point is kept when it lies more than the tolerance away from the line
// between the points kept around it, distances being geodesic.
package decimate

import (
	"math"
	"slices"

	"cairn.dev/cairn/modules/route/geo"
)

// Tolerance is the deviation in metres the pipeline allows: about 25,000
// recorded points become about 1,500.
const Tolerance = 20.0

// degenerate is the chord length, in metres, under which a segment is treated
// as a point (a loop that comes back to its start).
const degenerate = 0.001

// Simplify returns the points Douglas–Peucker keeps at tolerance metres, in
// order, elevations included. The deviation of a point is the height of the
// triangle (start, end, point) computed from the three geodesic side lengths;
// when start and end are less than 1 mm apart it is the distance to start.
// A point is kept when its deviation exceeds tolerance. The first and last
// points are always kept, and routes of two points or fewer come back as they
// are. The result never shares memory with points.
//
// The work list is an explicit stack, so a route of any length cannot
// overflow the goroutine stack. Geodesic distances are nearly all the cost:
// each point's trigonometry is prepared once, and its distances to the ends
// of the segment holding it are cached so that after a split only the side
// that moved is measured again. Scratch memory is about 90 bytes a point.
func Simplify(points []geo.Point, tolerance float64) []geo.Point {
	n := len(points)
	if n <= 2 {
		return slices.Clone(points)
	}

	prepared := make([]geo.Prepared, n)
	for i, p := range points {
		prepared[i] = geo.Prepare(p)
	}
	keep := make([]bool, n)
	keep[0], keep[n-1] = true, true
	// toStart[i] and toEnd[i] are the distances from point i to the first and
	// last point of the segment currently holding it.
	toStart := make([]float64, n)
	toEnd := make([]float64, n)
	first, last := prepared[0], prepared[n-1]
	for i := 1; i < n-1; i++ {
		toStart[i] = first.Distance(prepared[i])
		toEnd[i] = prepared[i].Distance(last)
	}

	type segment struct {
		start, end int
		chord      float64
	}
	stack := []segment{{0, n - 1, first.Distance(last)}}
	kept := 2
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.end-s.start < 2 {
			continue
		}

		worst, at := -1.0, -1
		for i := s.start + 1; i < s.end; i++ {
			if d := deviation(toStart[i], toEnd[i], s.chord); d > worst {
				worst, at = d, i
			}
		}
		if worst <= tolerance {
			continue
		}

		keep[at] = true
		kept++
		split := prepared[at]
		for i := s.start + 1; i < at; i++ {
			toEnd[i] = prepared[i].Distance(split)
		}
		for i := at + 1; i < s.end; i++ {
			toStart[i] = split.Distance(prepared[i])
		}
		stack = append(stack,
			segment{s.start, at, toStart[at]},
			segment{at, s.end, toEnd[at]},
		)
	}

	out := make([]geo.Point, 0, kept)
	for i, k := range keep {
		if k {
			out = append(out, points[i])
		}
	}
	return out
}

// deviation is the height over the chord side of the triangle whose sides are
// toStart, toEnd and chord.
func deviation(toStart, toEnd, chord float64) float64 {
	if chord < degenerate {
		return toStart
	}
	return 2 * triangleArea(toStart, toEnd, chord) / chord
}

// triangleArea uses Kahan's arrangement of Heron's formula: route triangles
// are needles (a point a few metres off a chord kilometres long), where the
// textbook form loses most of its digits to cancellation.
func triangleArea(a, b, c float64) float64 {
	// Sort so that a >= b >= c.
	if a < b {
		a, b = b, a
	}
	if b < c {
		b, c = c, b
	}
	if a < b {
		a, b = b, a
	}
	p := (a + (b + c)) * (c - (a - b)) * (c + (a - b)) * (a + (b - c))
	if p <= 0 {
		return 0 // collinear, or the triangle inequality lost to rounding
	}
	return math.Sqrt(p) / 4
}
