// Package routefixture generates routes and GPX files for tests: a long
// realistic route, multi-track files, synthetic shapes with known lengths,
// and hostile uploads. Everything is built in memory from a seed, so tests
// are deterministic and the repository holds no large binary fixture.
package routefixture

import (
	"bytes"
	"math"
	"math/rand/v2"

	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
)

// The long route: enough points and kilometres to show that parsing,
// decimation and pacing stay linear (at least 100,000 points, 2,000 km).
const (
	LongPoints  = 105_000
	LongSpacing = 20.0 // metres between recorded points, a typical GPS interval
	LongSeed    = 20240611
)

// Long returns the standard long route, Route(LongSeed, LongPoints,
// LongSpacing): about 2,100 km and 28,000 m of climbing through hilly
// country. Each call returns a fresh slice.
func Long() []geo.Point {
	return Route(LongSeed, LongPoints, LongSpacing)
}

// LongGPX returns Long written as a single-track GPX file (about 8 MB).
func LongGPX() []byte {
	var buf bytes.Buffer
	if err := export.WriteGPX(&buf, export.Track{Name: "Long fixture", Points: Long()}); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	return buf.Bytes()
}

// Route returns n pseudo-random points about spacing metres apart, the same for
// the same seed. The heading wanders with a smoothly varying turn rate (bends,
// switchbacks, long straights), the position carries a metre of GPS jitter,
// and the elevation is a sum of hills from 1.5 to 110 km wide plus a
// barometric altimeter's few centimetres of noise (about 14 m of climbing per
// km, between 100 and 1,200 m), so decimation and the ascent rule meet what
// real recordings give them. Coordinates are rounded to 1e-6° and elevations
// to 0.1 m, as devices write.
func Route(seed uint64, n int, spacing float64) []geo.Point {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	points := make([]geo.Point, 0, n)

	lat, lon := 44.0, 4.0
	heading, turn := 30.0, 0.0 // degrees, degrees per step
	const meanHeading = 30.0

	// Hills as (amplitude m, wavelength m, phase); random phases keep the
	// profile irregular.
	hills := [...]struct{ amp, wave, phase float64 }{
		{420, 110_000, 0}, {110, 28_000, 0}, {30, 7_000, 0}, {5, 1_500, 0},
	}
	for i := range hills {
		hills[i].phase = rng.Float64() * 2 * math.Pi
	}

	along := 0.0
	for range n {
		ele := 650.0
		for _, h := range hills {
			ele += h.amp * math.Sin(2*math.Pi*along/h.wave+h.phase)
		}
		ele = math.Max(0, ele+rng.NormFloat64()*0.05)
		jitterLat := rng.NormFloat64() * 1.0 / metresPerDegreeLat
		jitterLon := rng.NormFloat64() * 1.0 / metresPerDegreeLon(lat)
		points = append(points, geo.Point{
			Lat: round(lat+jitterLat, 1e6),
			Lon: round(lon+jitterLon, 1e6),
			Ele: round(ele, 10),
		})

		// The turn rate relaxes towards straight, is kicked at random, and is
		// pulled gently back to the mean heading so the route travels rather
		// than circles.
		turn = 0.96*turn + rng.NormFloat64()*0.9 + 0.002*angleDiff(meanHeading, heading)
		heading = math.Mod(heading+turn+360, 360)
		step := spacing * (0.8 + 0.4*rng.Float64())
		s, c := math.Sincos(heading * math.Pi / 180)
		lat += step * c / metresPerDegreeLat
		lon += step * s / metresPerDegreeLon(lat)
		along += step
	}
	return points
}

// Near enough for moving a generator along; distances are always measured
// with geo.Distance.
const metresPerDegreeLat = 111_132.0

func metresPerDegreeLon(lat float64) float64 {
	return 111_320.0 * math.Cos(lat*math.Pi/180)
}

// angleDiff is the signed smallest angle from b to a in degrees.
func angleDiff(a, b float64) float64 {
	return math.Mod(a-b+540, 360) - 180
}

func round(v, scale float64) float64 {
	return math.Round(v*scale) / scale
}
