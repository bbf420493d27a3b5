// Package geo measures routes: ellipsoidal distances on WGS-84 for lengths and
// splitting, and a spherical haversine for cheap proximity tests.
//
// No pure-Go geodesy module is served by the module proxy this project
// reaches (github.com/tidwall/geodesic, tidwall/geodesy and
// pymaxion/geographiclib-go were refused); github.com/twpayne/go-proj is
// served, but binds the PROJ C library through cgo, a native dependency
// and a lock per call for every route length, in a product otherwise built
// without cgo. Distance therefore solves the ellipsoidal inverse problem
// here, from published methods that tests hold against each other and
// against reference values of GeographicLib (Karney's algorithm).
package geo

import "math"

// Point is a track point: latitude and longitude in degrees (WGS-84), elevation
// in metres (0 when the source had none).
type Point struct {
	Lat, Lon, Ele float64
}

// WGS-84 defining constants.
const (
	semiMajor    = 6378137.0
	flattening   = 1 / 298.257223563
	semiMinor    = semiMajor * (1 - flattening)
	eccentricity = flattening * (2 - flattening) // squared
)

// EarthRadius is the spherical radius Haversine uses, in metres.
const EarthRadius = 6371000.0

// The physical range of an elevation, in metres: below the Dead Sea shore
// to above Everest. A point outside it is refused wherever it enters (an
// elevation of 1e308 would become an infinite descent) and never written.
const (
	MinElevation = -500
	MaxElevation = 9000
)

// Distance is the geodesic distance in metres between a and b on the WGS-84
// ellipsoid; elevation is ignored.
//
// Lines shorter than 100 km (every step of a route, and most chords that
// decimation measures) use the chord-to-arc series: the straight 3-D chord c
// through the ellipsoid, lengthened by the normal curvature κ of the surface
// along the line, s = c·(1 + k/24 + 3k²/640) with k = (κc)². It needs no
// trigonometry once the points are prepared and agrees with Vincenty within
// 10 µm at 100 km, closer below (Vincenty itself stops iterating at about
// 6 µm). Longer lines use Vincenty's inverse formula, as the original
// implementation did (pipeline.md §3), for at most maxIterations rounds.
// Near the antipodes Vincenty's iteration converges slowly or not at all;
// there the same series are solved for the starting azimuth by bisection
// (see bisected), which always converges. Never the case between two points
// of a ridden route, but a file may hold anything.
func Distance(a, b Point) float64 {
	return Prepare(a).Distance(Prepare(b))
}

// Prepared is a Point with the trigonometry Distance needs done once.
// Algorithms that measure the same points many times (decimation measures
// each point against every chord above it) keep Prepared values; distances
// are bit-for-bit those of Distance.
type Prepared struct {
	lat, lon                       float64 // degrees, as given
	x, y, z                        float64 // Earth-centred, Earth-fixed, metres
	sinLat, cosLat, sinLon, cosLon float64
}

// Prepare computes what Distance needs of p.
func Prepare(p Point) Prepared {
	sinLat, cosLat := math.Sincos(radians(p.Lat))
	sinLon, cosLon := math.Sincos(radians(p.Lon))
	n := semiMajor / math.Sqrt(1-eccentricity*sinLat*sinLat) // prime vertical radius
	return Prepared{
		lat: p.Lat, lon: p.Lon,
		x: n * cosLat * cosLon, y: n * cosLat * sinLon, z: n * (1 - eccentricity) * sinLat,
		sinLat: sinLat, cosLat: cosLat, sinLon: sinLon, cosLon: cosLon,
	}
}

// seriesLimit is the chord length, in metres, up to which the series is
// used: its first neglected terms stay under a micrometre.
const seriesLimit = 100_000.0

// Distance is geo.Distance between a and b.
func (a Prepared) Distance(b Prepared) float64 {
	if a.lat == b.lat && a.lon == b.lon {
		return 0
	}
	dx, dy, dz := b.x-a.x, b.y-a.y, b.z-a.z
	chordSq := dx*dx + dy*dy + dz*dz
	if chordSq < seriesLimit*seriesLimit {
		return arcFromChord(a, b, dx, dy, dz, chordSq)
	}
	if d, ok := vincenty(a, b); ok {
		return d
	}
	if d, ok := bisected(a, b); ok {
		return d
	}
	// Only a pole with an antipodal partner can get here: the meridian,
	// on the mean sphere.
	return greatCircle(a.lat, a.lon, b.lat, b.lon, meanRadius)
}

// arcFromChord is the chord-to-arc series. A geodesic's curvature as a space
// curve is the surface's normal curvature in its direction, taken here at the
// midpoint, where the chord is parallel to the line: Euler's formula
// κ = cos²α/M + sin²α/N with meridian radius M and prime vertical radius N.
func arcFromChord(a, b Prepared, dx, dy, dz, chordSq float64) float64 {
	// The ends' mean sines and cosines stand in for the midpoint's: they are
	// short by the cosine of half the angle between the ends, a relative
	// error under 1e-4 at 100 km that reaches κ damped by the flattening.
	sinLat, cosLat := (a.sinLat+b.sinLat)/2, (a.cosLat+b.cosLat)/2
	sinLon, cosLon := (a.sinLon+b.sinLon)/2, (a.cosLon+b.cosLon)/2
	// The chord's components along local north and east.
	north := -sinLat*cosLon*dx - sinLat*sinLon*dy + cosLat*dz
	east := -sinLon*dx + cosLon*dy
	cosSqAz := 0.5 // at a pole M = N and the azimuth does not matter
	if h := north*north + east*east; h > 0 {
		cosSqAz = north * north / h
	}
	// With W² = 1 − e²·sin²φ: 1/M = W³/(a(1−e²)) and 1/N = W/a.
	wSq := 1 - eccentricity*sinLat*sinLat
	curv := cosSqAz*wSq/(1-eccentricity) + (1 - cosSqAz)
	kappaSq := wSq / (semiMajor * semiMajor) * curv * curv
	k := kappaSq * chordSq
	return math.Sqrt(chordSq) * (1 + k/24 + 3*k*k/640)
}

const (
	// Vincenty converges in four to eight rounds away from the antipodes;
	// needing more means a nearly antipodal line, where bisected is surer
	// and, past this many rounds, quicker.
	maxIterations = 30
	// 1e-12 rad of longitude on the auxiliary sphere is about 6 µm on the ground.
	convergence = 1e-12
)

// vincenty solves the inverse problem by Vincenty's formula; ok is false
// when the iteration does not converge.
func vincenty(a, b Prepared) (d float64, ok bool) {
	sinU1, cosU1 := reducedLatitude(a)
	sinU2, cosU2 := reducedLatitude(b)
	lonDiff := radians(b.lon - a.lon)
	lambda := lonDiff
	var sinSigma, cosSigma, sigma, cosSqAlpha, cos2SigmaM float64
	converged := false
	for range maxIterations {
		sinLambda, cosLambda := math.Sincos(lambda)
		x := cosU2 * sinLambda
		y := cosU1*sinU2 - sinU1*cosU2*cosLambda
		sinSigma = math.Sqrt(x*x + y*y)
		if sinSigma == 0 {
			return 0, true // coincident once the longitude wraps
		}
		cosSigma = sinU1*sinU2 + cosU1*cosU2*cosLambda
		sigma = math.Atan2(sinSigma, cosSigma)
		sinAlpha := cosU1 * cosU2 * sinLambda / sinSigma
		cosSqAlpha = 1 - sinAlpha*sinAlpha
		if cosSqAlpha != 0 {
			cos2SigmaM = cosSigma - 2*sinU1*sinU2/cosSqAlpha
		} else {
			cos2SigmaM = 0 // the line runs along the equator
		}
		c := flattening / 16 * cosSqAlpha * (4 + flattening*(4-3*cosSqAlpha))
		previous := lambda
		lambda = lonDiff + (1-c)*flattening*sinAlpha*
			(sigma+c*sinSigma*(cos2SigmaM+c*cosSigma*(-1+2*cos2SigmaM*cos2SigmaM)))
		if math.Abs(lambda-previous) < convergence {
			converged = true
			break
		}
	}
	if !converged {
		return 0, false
	}
	uSq := cosSqAlpha * (semiMajor*semiMajor - semiMinor*semiMinor) / (semiMinor * semiMinor)
	bigA := 1 + uSq/16384*(4096+uSq*(-768+uSq*(320-175*uSq)))
	bigB := uSq / 1024 * (256 + uSq*(-128+uSq*(74-47*uSq)))
	c2 := cos2SigmaM * cos2SigmaM
	deltaSigma := bigB * sinSigma * (cos2SigmaM + bigB/4*(cosSigma*(-1+2*c2)-
		bigB/6*cos2SigmaM*(-3+4*sinSigma*sinSigma)*(-3+4*c2)))
	return semiMinor * bigA * (sigma - deltaSigma), true
}

// reducedLatitude is the sine and cosine of p's latitude on Vincenty's
// auxiliary sphere, tan U = (1 − f)·tan φ.
func reducedLatitude(p Prepared) (sin, cos float64) {
	x, y := p.cosLat, (1-flattening)*p.sinLat
	h := math.Hypot(x, y)
	return y / h, x / h
}

// meanRadius is the WGS-84 mean radius (2a+b)/3, the sphere closest to the
// ellipsoid.
const meanRadius = (2*semiMajor + semiMinor) / 3

// Haversine is the great-circle distance in metres between a and b on a sphere
// of radius EarthRadius. It is cheaper than Distance and meant for proximity
// tests (is a place within 2 km of the route?), not for route lengths.
func Haversine(a, b Point) float64 {
	return greatCircle(a.Lat, a.Lon, b.Lat, b.Lon, EarthRadius)
}

func greatCircle(lat1, lon1, lat2, lon2, radius float64) float64 {
	phi1, phi2 := radians(lat1), radians(lat2)
	sinDLat := math.Sin((phi2 - phi1) / 2)
	sinDLon := math.Sin(radians(lon2-lon1) / 2)
	h := sinDLat*sinDLat + math.Cos(phi1)*math.Cos(phi2)*sinDLon*sinDLon
	// Rounding can push h a hair above 1 for antipodal points.
	return 2 * radius * math.Asin(math.Sqrt(math.Min(h, 1)))
}

// Length is the length in metres of the polyline through points, the sum of
// Distance over consecutive points. Fewer than two points measure 0.
func Length(points []Point) float64 {
	if len(points) < 2 {
		return 0
	}
	total := 0.0
	prev := Prepare(points[0])
	for _, p := range points[1:] {
		next := Prepare(p)
		total += prev.Distance(next)
		prev = next
	}
	return total
}

func radians(deg float64) float64 { return deg * math.Pi / 180 }
