package geo

import "math"

// bisected solves the inverse problem where Vincenty's iteration on the
// longitude fails, by turning it around as Karney (2013, §4) does: for a
// starting azimuth α₁, the geodesic from the first point reaches the second
// point's latitude after an arc σ₁₂ on the auxiliary sphere, at a longitude
// difference L(α₁) given by Vincenty's own series. With the points put in a
// standard position (first point the farther from the equator and south of
// it, second point east), L grows with α₁ from 0 (due north) to about π (due
// south), so bisection on α₁ over [0, π] finds the geodesic whatever the
// configuration, antipodes included. The length then follows from σ₁₂ by
// Vincenty's distance series, accurate to a fraction of a millimetre.
//
// ok is false when a point is at a pole (the geodesic is then a meridian,
// which Vincenty solves).
func bisected(a, b Prepared) (d float64, ok bool) {
	sinB1, cosB1 := reducedLatitude(a)
	sinB2, cosB2 := reducedLatitude(b)
	lon := math.Abs(math.Remainder(radians(b.lon-a.lon), 2*math.Pi)) // east, mirroring if need be
	if math.Abs(sinB1) < math.Abs(sinB2) {
		sinB1, cosB1, sinB2, cosB2 = sinB2, cosB2, sinB1, cosB1 // the first farther from the equator
	}
	if sinB1 > 0 {
		sinB1, sinB2 = -sinB1, -sinB2 // and south of it
	}
	if cosB1 < 1e-12 || cosB2 < 1e-12 {
		return 0, false
	}

	lo, hi := 0.0, math.Pi
	if sinB1 == 0 && sinB2 == 0 {
		// Both on the equator: the equator itself is the geodesic up to
		// (1 − f)·π of longitude; beyond, the geodesic leaves it southwards
		// (by symmetry), starting between due east and due south.
		if lon <= (1-flattening)*math.Pi {
			return semiMajor * lon, true
		}
		lo = math.Pi / 2
	}
	var arc arcOnSphere
	for range 64 {
		mid := (lo + hi) / 2
		if mid <= lo || mid >= hi {
			break
		}
		arc = along(sinB1, cosB1, sinB2, cosB2, mid)
		if arc.lon < lon {
			lo = mid
		} else {
			hi = mid
		}
	}
	arc = along(sinB1, cosB1, sinB2, cosB2, (lo+hi)/2)
	return arc.length(), true
}

// arcOnSphere is a geodesic from the first point's reduced latitude to the
// second's, on Vincenty's auxiliary sphere.
type arcOnSphere struct {
	sigma, sigma1, sigma2 float64 // arc length and its ends from the equator crossing
	cosSqAlpha0           float64 // azimuth at the equator crossing
	lon                   float64 // longitude difference on the ellipsoid
}

// along follows the geodesic leaving the first point at azimuth alpha1 to
// the point where it rises through the second point's latitude.
func along(sinB1, cosB1, sinB2, cosB2, alpha1 float64) arcOnSphere {
	sinA1, cosA1 := math.Sincos(alpha1)
	sinA0 := sinA1 * cosB1
	cosSqA0 := 1 - sinA0*sinA0
	// Azimuth at the second point, where the geodesic rises (cos α₂ ≥ 0),
	// by Clairaut's relation cos β₂·sin α₂ = sin α₀.
	cosA2 := math.Sqrt(math.Max(0, cosA1*cosA1*cosB1*cosB1+(cosB2*cosB2-cosB1*cosB1))) / cosB2

	sigma1 := math.Atan2(sinB1, cosA1*cosB1)
	sigma2 := math.Atan2(sinB2, cosA2*cosB2)
	omega1 := math.Atan2(sinA0*sinB1, cosA1*cosB1)
	omega2 := math.Atan2(sinA0*sinB2, cosA2*cosB2)
	sigma := math.Mod(sigma2-sigma1+4*math.Pi, 2*math.Pi)
	omega := math.Mod(omega2-omega1+4*math.Pi, 2*math.Pi)
	sigma2 = sigma1 + sigma

	// Vincenty's relation between the longitude on the sphere and on the
	// ellipsoid, from the equator crossing's azimuth and the arc's midpoint.
	c := flattening / 16 * cosSqA0 * (4 + flattening*(4-3*cosSqA0))
	cos2M := math.Cos(sigma1 + sigma2)
	sinS, cosS := math.Sincos(sigma)
	lon := omega - (1-c)*flattening*sinA0*(sigma+c*sinS*(cos2M+c*cosS*(-1+2*cos2M*cos2M)))
	return arcOnSphere{sigma: sigma, sigma1: sigma1, sigma2: sigma2, cosSqAlpha0: cosSqA0, lon: lon}
}

// length is Vincenty's distance series for the arc.
func (g arcOnSphere) length() float64 {
	uSq := g.cosSqAlpha0 * (semiMajor*semiMajor - semiMinor*semiMinor) / (semiMinor * semiMinor)
	bigA := 1 + uSq/16384*(4096+uSq*(-768+uSq*(320-175*uSq)))
	bigB := uSq / 1024 * (256 + uSq*(-128+uSq*(74-47*uSq)))
	cos2M := math.Cos(g.sigma1 + g.sigma2)
	sinS, cosS := math.Sincos(g.sigma)
	c2 := cos2M * cos2M
	deltaSigma := bigB * sinS * (cos2M + bigB/4*(cosS*(-1+2*c2)-
		bigB/6*cos2M*(-3+4*sinS*sinS)*(-3+4*c2)))
	return semiMinor * bigA * (g.sigma - deltaSigma)
}
