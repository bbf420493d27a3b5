package decimate

import (
	"cmp"
	"context"
	"math"
	"slices"

	"cairn.dev/cairn/modules/route/geo"
)

// index answers "which point of positions i+1..j−1 lies farthest from the
// plane of segment (i, j)?" without looking at every point.
//
// It is a segment tree over blocks of leafSize consecutive points. Each node
// keeps the convex hull of its points in a gnomonic projection centred on
// the node: that projection maps planes through the Earth's centre to
// straight lines, so the signed distance to a segment's plane is, up to a
// positive factor close to 1 across a node, an affine function of the
// projected point, and its extremes over the node lie on the hull, where a
// binary search finds them. A query meets O(log n) nodes, each answered in
// O(log h) for a hull of h vertices, plus at most two partial blocks
// scanned point by point.
//
// The positive factor (the point's distance from the centre along the
// node's axis) differs between points of one node by at most 1.5 % on the
// widest nodes allowed (10° from their centre) and by about 10⁻⁸ on a
// kilometre-wide one. So the point a node offers may be slightly less far
// than its farthest; it is measured exactly before it is used, and when no
// offered point exceeds the tolerance, nodes whose bound still allows one
// are opened down to their points. That last step only happens for a
// stretch whose farthest point sits within the factor of the tolerance; its
// total cost is capped (budget), beyond which the offered points are
// trusted.
type index struct {
	pos       []geo.Vector
	width     int     // leaves rounded up to a power of two; node v's children are 2v and 2v+1
	nodes     []node  // heap order: 1 is the root, width+k is leaf k
	chunk     []int32 // where hulls are being stored: chunks are never grown, so never copied
	chunkSize int     // vertices allocated at a time: an eighth of the points, within 256..65,536
	budget    int     // exact evaluations left for opening nodes and scanning degenerate stretches

	cands     []int32 // scratch for building
	work      []projected
	chainWork []projected
	pending   []int32 // scratch for queries
}

// leafSize is the number of points of a leaf: a leaf is built by sorting and
// a partial one is scanned, both cheap at this size.
const leafSize = 64

// maxHull bounds a node's hull. A route convex at every scale (a perfect
// circle) has every point on every hull; past this size a node is not built
// and queries use its children, so the hulls take at most
// log₂(maxHull/leafSize) + 1 = 7 int32s a point whatever the shape, and a
// query over m points convex throughout visits about m/maxHull more nodes.
// Real recordings have hulls of a few dozen vertices: their jitter is not
// convex.
const maxHull = 4096

// capCos is the cosine of the widest angle between a node's centre and any
// of its points: beyond it the projection's factor varies too much, and the
// node is not built (queries go to its children instead).
var capCos = math.Cos(10 * math.Pi / 180)

type node struct {
	centre, east, north geo.Vector // unit vectors of the projection
	maxNorm             float64    // largest distance of a point from the Earth's centre
	lo, hi              int32      // points lo..hi−1
	hull                []int32    // point indices, anticlockwise from the westmost
	lower               int32      // position in hull of the eastmost
	ok                  bool       // built: within the cap, hull within maxHull, real points only
}

type projected struct {
	x, y float64
	i    int32
}

func newIndex(ctx context.Context, pos []geo.Vector) (*index, error) {
	n := len(pos)
	leaves := (n + leafSize - 1) / leafSize
	width := 1
	for width < leaves {
		width <<= 1
	}
	x := &index{
		pos:       pos,
		width:     width,
		nodes:     make([]node, 2*width),
		chunkSize: min(max(n/8, 256), 1<<16),
		budget:    4*n + 1<<16,
	}
	for k := range leaves {
		if k%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		lo, hi := k*leafSize, min((k+1)*leafSize, n)
		cands := x.cands[:0]
		for i := lo; i < hi; i++ {
			cands = append(cands, int32(i))
		}
		x.cands = cands
		x.build(width+k, lo, hi, cands)
	}
	for v := width - 1; v >= 1; v-- {
		if v%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		l, r := &x.nodes[2*v], &x.nodes[2*v+1]
		if !l.ok || !r.ok {
			continue
		}
		cands := append(append(x.cands[:0], l.hull...), r.hull...)
		x.cands = cands
		x.build(v, int(l.lo), int(r.hi), cands)
	}
	return x, nil
}

// build makes node v over points lo..hi−1 from the candidates for its hull:
// all points for a leaf, the children's hull vertices otherwise (a vertex of
// the whole is a vertex of one of its halves).
func (x *index) build(v, lo, hi int, cands []int32) {
	nd := &x.nodes[v]
	nd.lo, nd.hi = int32(lo), int32(hi)
	c := unit(x.pos[(lo+hi-1)/2])
	nd.centre = c
	if h := math.Hypot(c.X, c.Y); h > 1e-9 {
		nd.east = geo.Vector{X: -c.Y / h, Y: c.X / h}
	} else {
		nd.east = geo.Vector{Y: 1} // at a pole any horizontal axis will do
	}
	nd.north = c.Cross(nd.east)

	pts := x.work[:0]
	inCap := true
	for _, i := range cands {
		p := x.pos[i]
		r := p.Norm()
		along := p.Dot(c)
		if along < capCos*r {
			inCap = false
		}
		nd.maxNorm = max(nd.maxNorm, r)
		pts = append(pts, projected{x: p.Dot(nd.east) / along, y: p.Dot(nd.north) / along, i: i})
	}
	x.work = pts
	if !inCap {
		return
	}
	slices.SortFunc(pts, func(a, b projected) int {
		if c := cmp.Compare(a.x, b.x); c != 0 {
			return c
		}
		return cmp.Compare(a.y, b.y)
	})
	hull := chain(pts, x.chainWork[:0])
	x.chainWork = hull.points[:0]
	if len(hull.points) > maxHull {
		return
	}
	if cap(x.chunk)-len(x.chunk) < len(hull.points) {
		x.chunk = make([]int32, 0, max(x.chunkSize, len(hull.points)))
	}
	start := len(x.chunk)
	for _, p := range hull.points {
		x.chunk = append(x.chunk, p.i)
	}
	nd.hull, nd.lower, nd.ok = x.chunk[start:len(x.chunk):len(x.chunk)], int32(hull.lower), true
}

type convex struct {
	points []projected // anticlockwise from the westmost point
	lower  int         // position of the eastmost point
}

// chain is Andrew's monotone chain over points sorted by x then y; points
// on an edge are dropped. It reorders pts and builds the result in out.
func chain(pts, out []projected) convex {
	// Drop exact duplicates: a zero-length edge would stall the searches.
	uniq := pts[:0]
	for _, p := range pts {
		if len(uniq) == 0 || p.x != uniq[len(uniq)-1].x || p.y != uniq[len(uniq)-1].y {
			uniq = append(uniq, p)
		}
	}
	if len(uniq) <= 2 {
		out = append(out, uniq...)
		return convex{points: out, lower: len(out) - 1}
	}
	for _, p := range uniq {
		for len(out) >= 2 && turn(out[len(out)-2], out[len(out)-1], p) <= 0 {
			out = out[:len(out)-1]
		}
		out = append(out, p)
	}
	lower := len(out) - 1
	for k := len(uniq) - 2; k >= 0; k-- {
		p := uniq[k]
		for len(out) > lower+1 && turn(out[len(out)-2], out[len(out)-1], p) <= 0 {
			out = out[:len(out)-1]
		}
		out = append(out, p)
	}
	return convex{points: out[:len(out)-1], lower: lower} // the last is the first again
}

// turn is positive when a → b → c turns anticlockwise.
func turn(a, b, c projected) float64 {
	return (b.x-a.x)*(c.y-a.y) - (b.y-a.y)*(c.x-a.x)
}

func unit(v geo.Vector) geo.Vector {
	n := v.Norm()
	return geo.Vector{X: v.X / n, Y: v.Y / n, Z: v.Z / n}
}

// farthest is the point strictly between start and end deviating most from
// their segment, and its deviation; -1 and 0 when there is none. tolerance
// decides how hard to look: a point is returned beyond it whenever one
// exists (within the budget), and below it the exact farthest does not
// matter.
func (x *index) farthest(start, end int, tolerance float64) (int, float64) {
	lo, hi := start+1, end-1
	if hi < lo {
		return -1, 0
	}
	m := newMeasure(x.pos[start], x.pos[end])
	if m.point {
		// Only a route's first stretch can be a loop back to its start: the
		// farthest point of a stretch is farther from its ends than the
		// tolerance, so no later stretch has coinciding ends. Antipodal ends
		// can repeat on a crafted file, hence the budget.
		if x.budget < hi-lo+1 {
			return (start + end) / 2, math.Inf(1) // keep one more point, never one fewer
		}
		x.budget -= hi - lo + 1
		return x.scan(lo, hi+1, m)
	}
	if hi-lo+1 <= 2*leafSize {
		return x.scan(lo, hi+1, m)
	}

	firstLeaf := (lo + leafSize - 1) / leafSize
	lastLeaf := (hi+1)/leafSize - 1
	best, bestDev := x.scan(lo, firstLeaf*leafSize, m)
	if i, d := x.scan((lastLeaf+1)*leafSize, hi+1, m); d > bestDev {
		best, bestDev = i, d
	}
	x.pending = x.pending[:0]
	var visit func(v int)
	visit = func(v int) {
		nd := &x.nodes[v]
		if !nd.ok {
			if v >= x.width {
				if i, d := x.scan(int(nd.lo), int(nd.hi), m); d > bestDev {
					best, bestDev = i, d
				}
				return
			}
			visit(2 * v)
			visit(2*v + 1)
			return
		}
		i, d, bound := x.offer(nd, m)
		if d > bestDev {
			best, bestDev = i, d
		}
		if bound > tolerance && d <= tolerance {
			x.pending = append(x.pending, int32(v))
		}
	}
	// The canonical cover of leaves firstLeaf..lastLeaf.
	for l, r := firstLeaf+x.width, lastLeaf+x.width+1; l < r; l, r = l>>1, r>>1 {
		if l&1 == 1 {
			visit(l)
			l++
		}
		if r&1 == 1 {
			r--
			visit(r)
		}
	}
	if bestDev > tolerance {
		return best, bestDev
	}

	// Nothing offered exceeds the tolerance: open the nodes that could still
	// hold a point beyond it.
	for len(x.pending) > 0 && x.budget > 0 {
		v := int(x.pending[len(x.pending)-1])
		x.pending = x.pending[:len(x.pending)-1]
		if v >= x.width {
			nd := &x.nodes[v]
			x.budget -= int(nd.hi - nd.lo)
			if i, d := x.scan(int(nd.lo), int(nd.hi), m); d > tolerance {
				return i, d
			}
			continue
		}
		for _, c := range [2]int{2 * v, 2*v + 1} {
			x.budget -= 8
			i, d, bound := x.offer(&x.nodes[c], m)
			if d > tolerance {
				return i, d
			}
			if bound > tolerance {
				x.pending = append(x.pending, int32(c))
			}
		}
	}
	return best, bestDev
}

// scan measures points lo..hi−1 one by one.
func (x *index) scan(lo, hi int, m measure) (int, float64) {
	best, bestDev := -1, -1.0
	for i := lo; i < hi; i++ {
		if d := m.of(x.pos[i]); d > bestDev {
			best, bestDev = i, d
		}
	}
	return best, bestDev
}

// offer is the node's candidate for the farthest point, with its exact
// deviation, and a bound no point of the node exceeds. It looks for the
// extremes of the projected signed distance g = normal·(centre + x·east +
// y·north) on the hull's lower chain (westmost to eastmost) and upper chain
// (back again): along each, g rises then falls or falls then rises, once.
func (x *index) offer(nd *node, m measure) (int, float64, float64) {
	gc, ge, gn := m.normal.Dot(nd.centre), m.normal.Dot(nd.east), m.normal.Dot(nd.north)
	hull := nd.hull
	g := func(k int) float64 {
		p := x.pos[hull[k%len(hull)]]
		along := p.Dot(nd.centre)
		return gc + (ge*p.Dot(nd.east)+gn*p.Dot(nd.north))/along
	}
	lower, size := int(nd.lower), len(hull)
	cands := [4]int{
		peak(lower, g),
		peak(lower, func(k int) float64 { return -g(k) }),
		lower + peak(size-lower, func(k int) float64 { return g(lower + k) }),
		lower + peak(size-lower, func(k int) float64 { return -g(lower + k) }),
	}

	best, bestDev := -1, -1.0
	gMax, gMin := math.Inf(-1), math.Inf(1)
	for _, k := range cands {
		v := g(k)
		gMax, gMin = max(gMax, v), min(gMin, v)
		i := int(hull[k%size])
		if d := m.of(x.pos[i]); d > bestDev {
			best, bestDev = i, d
		}
	}
	bound := max(gMax, -gMin, 0) * nd.maxNorm * (1 + 1e-9)
	return best, bestDev, bound
}

// peak is the position in 0..last where f, along a chain on which it is
// unimodal or its opposite (it changes direction at most once), is largest.
func peak(last int, f func(int) float64) int {
	if last <= 0 {
		return 0
	}
	if f(1) <= f(0) {
		// Falling first: the largest is at one end.
		if f(last) > f(0) {
			return last
		}
		return 0
	}
	lo, hi := 1, last // f rises into lo
	for lo < hi {
		mid := (lo + hi) / 2
		if f(mid+1) > f(mid) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
