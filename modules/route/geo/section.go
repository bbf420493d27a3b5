package geo

import "math"

// Vector is an Earth-centred, Earth-fixed position in metres: X towards
// (0°, 0°), Y towards (0°, 90°E), Z towards the north pole.
type Vector struct {
	X, Y, Z float64
}

// Dot is the scalar product of v and w.
func (v Vector) Dot(w Vector) float64 { return v.X*w.X + v.Y*w.Y + v.Z*w.Z }

// Cross is the vector product v × w.
func (v Vector) Cross(w Vector) Vector {
	return Vector{v.Y*w.Z - v.Z*w.Y, v.Z*w.X - v.X*w.Z, v.X*w.Y - v.Y*w.X}
}

// Sub is v − w.
func (v Vector) Sub(w Vector) Vector { return Vector{v.X - w.X, v.Y - w.Y, v.Z - w.Z} }

// Norm is the length of v.
func (v Vector) Norm() float64 { return math.Sqrt(v.Dot(v)) }

// ECEF is p's position on the WGS-84 ellipsoid; elevation is ignored, so
// every position lies on the surface.
func ECEF(p Point) Vector {
	q := Prepare(p)
	return Vector{q.x, q.y, q.z}
}

// Interpolate is the point a fraction t of the way from a to b along the
// ellipsoid's section by the plane through a, b and the Earth's centre (the
// great ellipse, which a geodesic follows to within centimetres at route
// scale): the direction from the centre turns at a constant rate, as on a
// sphere, and meets the surface. Elevation is interpolated linearly. For
// antipodal points, where the plane is not defined, it is a itself.
func Interpolate(a, b Point, t float64) Point {
	ua, ub := unit(ECEF(a)), unit(ECEF(b))
	// The angle between the directions, from both its sine and cosine so it
	// stays exact for nearly equal directions.
	sinW := ua.Cross(ub).Norm()
	w := math.Atan2(sinW, ua.Dot(ub))
	if sinW < 1e-15 {
		if w > math.Pi/2 {
			return a // antipodal: every section through a and b is as short
		}
		lon := a.Lon + t*angleStep(a.Lon, b.Lon)
		return Point{Lat: a.Lat + t*(b.Lat-a.Lat), Lon: angleStep(0, lon), Ele: a.Ele + t*(b.Ele-a.Ele)}
	}
	// Spherical linear interpolation of the directions.
	ka, kb := math.Sin((1-t)*w)/sinW, math.Sin(t*w)/sinW
	u := Vector{ka*ua.X + kb*ub.X, ka*ua.Y + kb*ub.Y, ka*ua.Z + kb*ub.Z}
	lat, lon := surfaceLatLon(u)
	return Point{Lat: lat, Lon: lon, Ele: a.Ele + t*(b.Ele-a.Ele)}
}

// Toward is the point at d metres (by Distance) from a on the way to b,
// along the section Interpolate follows: a for d ≤ 0, b for d at least
// Distance(a, b). Within the segment it is found to a micrometre in a few
// steps, for a route step or a leg of thousands of kilometres alike.
func Toward(a, b Point, d float64) Point {
	total := Distance(a, b)
	switch {
	case d <= 0 || total == 0:
		return a
	case d >= total:
		return b
	}
	// Distance grows with the fraction almost in proportion (exactly so on a
	// sphere for the angle): correcting the fraction by the ratio of wanted
	// to measured converges in two or three rounds.
	t := d / total
	p := Interpolate(a, b, t)
	for range maxTowardSteps {
		got := Distance(a, p)
		if math.Abs(got-d) <= towardPrecision || got == 0 {
			break
		}
		t = math.Min(1, t*d/got)
		p = Interpolate(a, b, t)
	}
	return p
}

const (
	maxTowardSteps  = 20
	towardPrecision = 1e-7 // metres
)

func unit(v Vector) Vector {
	n := v.Norm()
	return Vector{v.X / n, v.Y / n, v.Z / n}
}

// surfaceLatLon is the geodetic latitude and longitude of the surface point
// in direction u from the centre. On the surface the geodetic latitude
// follows from the geocentric one: tan φ = z / ((1 − e²)·√(x² + y²)).
func surfaceLatLon(u Vector) (lat, lon float64) {
	lat = math.Atan2(u.Z, (1-eccentricity)*math.Hypot(u.X, u.Y)) * 180 / math.Pi
	lon = math.Atan2(u.Y, u.X) * 180 / math.Pi
	return lat, lon
}

// angleStep is the signed smallest longitude change from a to b in degrees.
func angleStep(a, b float64) float64 {
	return math.Mod(b-a+540, 360) - 180
}

// Surface is the point of the ellipsoid, at elevation 0, in direction v
// from the Earth's centre.
func Surface(v Vector) Point {
	lat, lon := surfaceLatLon(v)
	return Point{Lat: lat, Lon: lon}
}
