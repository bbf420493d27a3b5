package routefixture

import (
	"math"

	"cairn.dev/cairn/modules/route/geo"
)

// Zigzag geometry: legs long enough to give pacing a boundary every few
// hundred metres, swings wide enough that 20 m decimation keeps every turn.
const (
	ZigzagStep  = 50.0  // metres along the equator between two points
	ZigzagLeg   = 500.0 // metres along the equator between two turns, a multiple of ZigzagStep
	ZigzagSwing = 25.0  // metres north and south of the equator at the turns
)

// Zigzag returns a flat route of length metres heading east along the
// equator from longitude 0, with a point every ZigzagStep metres of longitude
// and a turn on a point every ZigzagLeg metres, swinging ZigzagSwing metres
// north and south (it starts at the northern swing). Decimation at 20 m keeps exactly the turns and the ends, so a pacing
// cut lands less than one leg (about 502 m of path) past its target. Near the
// equator a degree of longitude is a·π/180 and one of latitude 110,574 m, so
// geo.Length of the result is length within a centimetre.
func Zigzag(length float64) []geo.Point {
	const (
		metresPerDegreeLon = 6378137 * math.Pi / 180
		metresPerDegreeLat = 110_574.0
	)
	// Walking the slanted legs covers more ground than their east-west span.
	slant := math.Hypot(ZigzagLeg, 2*ZigzagSwing) / ZigzagLeg
	span := length / slant

	n := int(math.Ceil(span/ZigzagStep)) + 1
	points := make([]geo.Point, 0, n)
	for i := range n {
		x := math.Min(float64(i)*ZigzagStep, span)
		// Triangle wave through +swing at even turns and -swing at odd ones.
		phase := math.Mod(x/ZigzagLeg, 2)
		y := ZigzagSwing * (2*math.Abs(phase-1) - 1)
		points = append(points, geo.Point{Lat: y / metresPerDegreeLat, Lon: x / metresPerDegreeLon})
	}
	return points
}

// Hills sets the elevation of points, in place, to a triangle wave of
// cumulative distance: from 0 up to height over half of wavelength metres,
// then down again. Every climb is monotonic, so the ascent rule counts it in
// full: a route of k whole waves climbs k·height.
func Hills(points []geo.Point, height, wavelength float64) []geo.Point {
	along := 0.0
	for i := range points {
		if i > 0 {
			along += geo.Distance(points[i-1], points[i])
		}
		phase := math.Mod(along/wavelength, 1)
		points[i].Ele = height * (1 - math.Abs(2*phase-1))
	}
	return points
}
