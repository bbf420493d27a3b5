package routefixture

import (
	"math"
	"math/rand/v2"

	"cairn.dev/cairn/modules/route/geo"
)

// ShapeSpacing is the distance in metres between consecutive points of
// every Shape: a 1,000,000-point shape is about 10,000 km long.
const ShapeSpacing = 10.0

// Shape is a route of n points built to stress one part of the import:
// Douglas–Peucker's choice of split, the convex hulls behind it, or pacing's
// cuts. Points are ShapeSpacing metres apart with a metre of GPS jitter, on
// rolling hills, and the same for the same n.
type Shape struct {
	Name   string
	Points func(n int) []geo.Point
}

// Shapes are the shapes an import must handle in O(n log n): a straight
// line (decimation keeps its two ends, pacing must cut between them), a
// zig-zag (every turn ties for farthest, so naive Douglas–Peucker peels one
// turn at a time), switchbacks (hairpins across a slow climb), a random walk
// (almost every point is kept), an out-and-back (the route ends where it
// starts and runs over itself) and a loop (a circle: every stretch convex).
func Shapes() []Shape {
	return []Shape{
		{Name: "straight", Points: Straight},
		{Name: "zigzag", Points: ZigzagPoints},
		{Name: "switchbacks", Points: Switchbacks},
		{Name: "randomwalk", Points: RandomWalk},
		{Name: "outandback", Points: OutAndBack},
		{Name: "loop", Points: Loop},
	}
}

// shapeStart is where the shapes begin, in southern France.
var shapeStart = geo.Point{Lat: 44, Lon: 4}

// Straight is n points along the great ellipse from shapeStart towards the
// north-east.
func Straight(n int) []geo.Point {
	return Line(n, float64(n-1)*ShapeSpacing)
}

// Line is n points evenly spread over a straight line of length metres
// (Straight's), with the same jitter and hills: a recording of it measures
// a little longer than the line, by the jitter. Decimation keeps only its
// two ends.
func Line(n int, length float64) []geo.Point {
	return onLine(n, 7, length/float64(max(n-1, 1)), func(float64) float64 { return 0 })
}

// ZigzagPoints is n points along a straight line, turning every tenth point
// with a swing of ZigzagSwing metres either side.
func ZigzagPoints(n int) []geo.Point {
	const leg = 10 * ShapeSpacing
	return onLine(n, 8, ShapeSpacing, func(along float64) float64 {
		phase := math.Mod(along/leg, 2)
		return ZigzagSwing * (2*math.Abs(phase-1) - 1)
	})
}

// Switchbacks is n points of hairpin road: 300 m legs across the line's
// direction, joined by half-turns of 20 m radius, each climbing the slope
// by their diameter. The slope is a pass, 10 % up to 1,800 m and down the
// other side, over and over: a climb that never ended would leave the
// physical range of elevations (geo.MaxElevation) within 90k points, and
// no parser accepts that recording.
func Switchbacks(n int) []geo.Point {
	const (
		legLength  = 300.0
		radius     = 20.0
		passHeight = 1500.0          // from 300 m to the col at 1,800 m
		passRun    = passHeight * 10 // along the line, at 10 %
	)
	turn := math.Pi * radius
	period := 2 * (legLength + turn)
	points := make([]geo.Point, 0, n)
	line := newLine(9, float64(n)*ShapeSpacing*2*radius/(legLength+turn)+1000)
	rng := rand.New(rand.NewPCG(9, 90))
	for k := range n {
		s := float64(k) * ShapeSpacing
		cycle, at := math.Floor(s/period), math.Mod(s, period)
		along := cycle * 4 * radius
		var lateral float64
		switch {
		case at < legLength: // out to the right
			lateral = at
		case at < legLength+turn: // half-turn up the slope
			a := (at - legLength) / radius
			lateral, along = legLength+radius*math.Sin(a), along+radius*(1-math.Cos(a))
		case at < 2*legLength+turn: // back to the left
			lateral, along = legLength-(at-legLength-turn), along+2*radius
		default: // half-turn up again
			a := (at - 2*legLength - turn) / radius
			lateral, along = -radius*math.Sin(a), along+2*radius+radius*(1-math.Cos(a))
		}
		p := line.at(along, lateral-legLength/2)
		p.Ele = 300 + passHeight*(1-math.Abs(math.Mod(along/passRun, 2)-1)) // 10 %, the slope's own
		points = append(points, jitter(rng, p))
	}
	return points
}

// RandomWalk is n points whose heading turns at random by up to 90° at
// every step: nothing is straight, and decimation keeps most of it.
func RandomWalk(n int) []geo.Point {
	rng := rand.New(rand.NewPCG(10, 100))
	points := make([]geo.Point, 0, n)
	lat, lon, heading := shapeStart.Lat, shapeStart.Lon, 0.0
	for k := range n {
		points = append(points, geo.Point{Lat: lat, Lon: lon, Ele: hills(float64(k) * ShapeSpacing)})
		heading += (rng.Float64() - 0.5) * math.Pi / 2
		s, c := math.Sincos(heading)
		lat += ShapeSpacing * c / metresPerDegreeLat
		lon += ShapeSpacing * s / metresPerDegreeLon(lat)
	}
	return points
}

// OutAndBack is a winding route of n/2 points (Route's) ridden back along
// itself with fresh jitter, ending where it started.
func OutAndBack(n int) []geo.Point {
	out := Route(11, (n+1)/2, ShapeSpacing)
	rng := rand.New(rand.NewPCG(11, 110))
	points := make([]geo.Point, 0, n)
	points = append(points, out...)
	for k := len(out) - 1; len(points) < n; k-- {
		points = append(points, jitter(rng, out[k]))
	}
	return points
}

// Loop is n points around a circle of n·ShapeSpacing metres, back to the
// start.
func Loop(n int) []geo.Point {
	rng := rand.New(rand.NewPCG(12, 120))
	radius := float64(n) * ShapeSpacing / (2 * math.Pi) / meanEarthRadius // radians
	centre := geo.ECEF(shapeStart)
	up := unitVector(centre)
	east := unitVector(geo.Vector{X: -up.Y, Y: up.X})
	north := up.Cross(east)
	sr, cr := math.Sincos(radius)
	points := make([]geo.Point, 0, n)
	for k := range n {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		dir := geo.Vector{
			X: cr*up.X + sr*(c*north.X+s*east.X),
			Y: cr*up.Y + sr*(c*north.Y+s*east.Y),
			Z: cr*up.Z + sr*(c*north.Z+s*east.Z),
		}
		p := geo.Surface(dir)
		p.Ele = hills(float64(k) * ShapeSpacing)
		points = append(points, jitter(rng, p))
	}
	points[n-1] = points[0]
	return points
}

const meanEarthRadius = 6371000.0

// onLine is n points spacing metres apart along the line, offset sideways
// by lateral(along) metres.
func onLine(n int, seed uint64, spacing float64, lateral func(along float64) float64) []geo.Point {
	rng := rand.New(rand.NewPCG(seed, seed*10))
	line := newLine(seed, float64(n)*spacing+1000)
	points := make([]geo.Point, 0, n)
	for k := range n {
		along := float64(k) * spacing
		p := line.at(along, lateral(along))
		p.Ele = hills(along)
		points = append(points, jitter(rng, p))
	}
	return points
}

// line is a great ellipse from shapeStart, with sideways offsets measured
// along its plane's normal.
type line struct {
	start, end geo.Point
	length     float64    // metres from start to end
	normal     geo.Vector // unit normal of the plane, to the left
}

func newLine(seed uint64, length float64) line {
	// Aim north-east at the wanted distance on the mean sphere; the
	// ellipsoid makes the real length a little different, which at()
	// absorbs by measuring along the real line.
	az := math.Pi/4 + float64(seed%4)*0.05
	d := length / meanEarthRadius
	lat1, lon1 := shapeStart.Lat*math.Pi/180, shapeStart.Lon*math.Pi/180
	lat2 := math.Asin(math.Sin(lat1)*math.Cos(d) + math.Cos(lat1)*math.Sin(d)*math.Cos(az))
	lon2 := lon1 + math.Atan2(math.Sin(az)*math.Sin(d)*math.Cos(lat1), math.Cos(d)-math.Sin(lat1)*math.Sin(lat2))
	end := geo.Point{Lat: lat2 * 180 / math.Pi, Lon: math.Mod(lon2*180/math.Pi+540, 360) - 180}
	a, b := geo.ECEF(shapeStart), geo.ECEF(end)
	return line{start: shapeStart, end: end, length: geo.Distance(shapeStart, end), normal: unitVector(a.Cross(b))}
}

// at is the point along metres from the start, lateral metres to the left.
func (l line) at(along, lateral float64) geo.Point {
	p := geo.Interpolate(l.start, l.end, along/l.length)
	if lateral == 0 {
		return p
	}
	v := geo.ECEF(p)
	return geo.Surface(geo.Vector{X: v.X + lateral*l.normal.X, Y: v.Y + lateral*l.normal.Y, Z: v.Z + lateral*l.normal.Z})
}

// hills is rolling country: 150 m up and down every 12 km, 40 m every 2 km.
func hills(along float64) float64 {
	return 400 + 150*math.Sin(2*math.Pi*along/12_000) + 40*math.Sin(2*math.Pi*along/2_000)
}

// jitter moves p by a metre or so of GPS noise, keeping its elevation.
func jitter(rng *rand.Rand, p geo.Point) geo.Point {
	p.Lat += rng.NormFloat64() / metresPerDegreeLat
	p.Lon += rng.NormFloat64() / metresPerDegreeLon(p.Lat)
	return p
}

func unitVector(v geo.Vector) geo.Vector {
	n := v.Norm()
	return geo.Vector{X: v.X / n, Y: v.Y / n, Z: v.Z / n}
}
