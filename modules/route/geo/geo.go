// Package geo measures routes: ellipsoidal distances on WGS-84 for lengths and
// splitting, and a spherical haversine for cheap proximity tests.
//
// The preferred library, github.com/tidwall/geodesic (Karney's GeographicLib),
// is not served by the module proxy this project can reach, and no other Go
// module there solves the ellipsoidal inverse problem. Distance therefore
// implements Vincenty's inverse formula, which is also what the original
// implementation used (pipeline.md §3).
package geo

import "math"

// Point is a track point: latitude and longitude in degrees (WGS-84), elevation
// in metres (0 when the source had none).
type Point struct {
	Lat, Lon, Ele float64
}

// WGS-84 defining constants.
const (
	semiMajor  = 6378137.0
	flattening = 1 / 298.257223563
	semiMinor  = semiMajor * (1 - flattening)
)

// EarthRadius is the spherical radius Haversine uses, in metres.
const EarthRadius = 6371000.0

const (
	// Vincenty converges in two or three rounds for the short segments of a
	// route; the cap only matters for nearly antipodal points.
	maxIterations = 200
	// 1e-12 rad of longitude on the auxiliary sphere is about 6 µm on the ground.
	convergence = 1e-12
)

// Distance is the geodesic distance in metres between a and b on the WGS-84
// ellipsoid, by Vincenty's inverse formula; elevation is ignored. Vincenty is
// accurate to well under a millimetre but may fail to converge for nearly
// antipodal points (never two points of a ridden route); Distance then falls
// back to the great-circle distance on a sphere of the mean radius, within
// about 0.5 % of the true value.
func Distance(a, b Point) float64 {
	return Prepare(a).Distance(Prepare(b))
}

// Prepared is a Point with the trigonometry Distance needs for it done once.
// Algorithms that measure the same points many times (decimation measures
// each point against every chord above it) keep Prepared values; distances
// are bit-for-bit those of Distance.
type Prepared struct {
	Point
	sinU, cosU float64 // the reduced latitude, on the auxiliary sphere
}

// Prepare computes p's reduced latitude for repeated Distance calls.
func Prepare(p Point) Prepared {
	tanU := (1 - flattening) * math.Tan(radians(p.Lat))
	cosU := 1 / math.Sqrt(1+tanU*tanU)
	return Prepared{Point: p, sinU: tanU * cosU, cosU: cosU}
}

// Distance is geo.Distance(a.Point, b.Point) without recomputing a and b.
func (a Prepared) Distance(b Prepared) float64 {
	if a.Lat == b.Lat && a.Lon == b.Lon {
		return 0
	}
	if d, ok := vincenty(a.sinU, a.cosU, b.sinU, b.cosU, radians(b.Lon-a.Lon)); ok {
		return d
	}
	return greatCircle(a.Point, b.Point, meanRadius)
}

// vincenty solves the inverse problem on the ellipsoid from the reduced
// latitudes and the longitude difference in radians; ok is false when the
// iteration does not converge.
func vincenty(sinU1, cosU1, sinU2, cosU2, lonDiff float64) (d float64, ok bool) {
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

// meanRadius is the WGS-84 mean radius (2a+b)/3, the sphere closest to the
// ellipsoid, used only when Vincenty does not converge.
const meanRadius = (2*semiMajor + semiMinor) / 3

// Haversine is the great-circle distance in metres between a and b on a sphere
// of radius EarthRadius. It is cheaper than Distance and meant for proximity
// tests (is a place within 2 km of the route?), not for route lengths.
func Haversine(a, b Point) float64 {
	return greatCircle(a, b, EarthRadius)
}

func greatCircle(a, b Point, radius float64) float64 {
	lat1, lat2 := radians(a.Lat), radians(b.Lat)
	sinDLat := math.Sin((lat2 - lat1) / 2)
	sinDLon := math.Sin(radians(b.Lon-a.Lon) / 2)
	h := sinDLat*sinDLat + math.Cos(lat1)*math.Cos(lat2)*sinDLon*sinDLon
	// Rounding can push h a hair above 1 for antipodal points.
	return 2 * radius * math.Asin(math.Sqrt(math.Min(h, 1)))
}

// Length is the length in metres of the polyline through points, the sum of
// Distance over consecutive points. Fewer than two points measure 0.
func Length(points []Point) float64 {
	total := 0.0
	for i := 1; i < len(points); i++ {
		total += Distance(points[i-1], points[i])
	}
	return total
}

func radians(deg float64) float64 { return deg * math.Pi / 180 }
