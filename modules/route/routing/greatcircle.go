package routing

import (
	"context"
	"errors"
	"math"

	"cairn.dev/cairn/modules/route/geo"
)

// DefaultSpacing is GreatCircle's distance between interpolated points, in
// metres: close enough that a map draws the arc as a curve, far enough that
// a continental detour stays a few thousand points.
const DefaultSpacing = 1000.0

// maxPoints bounds the line GreatCircle builds: via points come from users,
// and a tiny spacing over a long line would otherwise allocate without
// limit. Past it the spacing widens.
const maxPoints = 100_000

// ErrAntipodal refuses consecutive via points at opposite ends of the Earth,
// which infinitely many great circles join. No ridden detour comes near it.
var ErrAntipodal = errors.New("routing: consecutive via points are antipodal")

// GreatCircle is the router that knows no roads: it joins each pair of
// consecutive via points along the great circle between them, with a point
// every Spacing metres, so the line drawn on a map is the shortest one and
// crosses the antimeridian the short way. The zero value is ready to use.
//
// Distance is the sum of geo.Distance (the WGS-84 geodesic) between
// consecutive via points, Duration that distance at Speed, ElevationGain 0
// (no elevation model: the via points' elevations alone say nothing about
// the climbs between them) and Approximate always true. Interpolated points
// take an elevation linearly between their via points', so a profile drawn
// from the line has no false spikes.
type GreatCircle struct {
	// Speed is the cycling speed in km/h; 0 or less means DefaultSpeed.
	Speed float64
	// Spacing is the largest distance in metres between two consecutive
	// points of the line; 0 or less means DefaultSpacing.
	Spacing float64
}

var _ Router = GreatCircle{}

// Route joins via along great circles. It fails with ErrTooFewPoints,
// ErrInvalidPoint, ErrAntipodal, or ctx's error when ctx is already done.
func (g GreatCircle) Route(ctx context.Context, via []geo.Point) (Result, error) {
	if err := checkVia(via); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	speed := g.Speed
	if !(speed > 0) || math.IsInf(speed, 0) {
		speed = DefaultSpeed
	}
	spacing := g.Spacing
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		spacing = DefaultSpacing
	}

	legs := make([]float64, len(via)-1)
	total := 0.0
	for i := range legs {
		legs[i] = geo.Distance(via[i], via[i+1])
		total += legs[i]
	}
	if total/spacing > maxPoints {
		spacing = total / maxPoints
	}

	coords := make([]geo.Point, 1, int(total/spacing)+len(via)+1)
	coords[0] = via[0]
	for i, length := range legs {
		var err error
		coords, err = appendArc(coords, via[i], via[i+1], int(math.Ceil(length/spacing)))
		if err != nil {
			return Result{}, err
		}
	}
	km := total / 1000
	return Result{
		Coordinates: coords,
		Distance:    km,
		Duration:    durationAt(km, speed),
		Approximate: true,
	}, nil
}

// unit is a point on the unit sphere, Earth-centred.
type unit struct{ x, y, z float64 }

func toUnit(p geo.Point) unit {
	sinLat, cosLat := math.Sincos(p.Lat * math.Pi / 180)
	sinLon, cosLon := math.Sincos(p.Lon * math.Pi / 180)
	return unit{cosLat * cosLon, cosLat * sinLon, sinLat}
}

// appendArc appends to line the points that split the great circle from a
// to b into pieces equal parts, then b itself (a is expected to be there
// already). Latitudes are taken as spherical ones: the difference from the
// ellipsoid's geodesic is metres over a long leg, well below what an
// approximate line promises.
func appendArc(line []geo.Point, a, b geo.Point, pieces int) ([]geo.Point, error) {
	ua, ub := toUnit(a), toUnit(b)
	// The angle from the cross and dot products stays accurate for both
	// tiny and near-π angles, where acos of the dot product does not.
	cx := ua.y*ub.z - ua.z*ub.y
	cy := ua.z*ub.x - ua.x*ub.z
	cz := ua.x*ub.y - ua.y*ub.x
	sinAngle := math.Sqrt(cx*cx + cy*cy + cz*cz)
	cosAngle := ua.x*ub.x + ua.y*ub.y + ua.z*ub.z
	if sinAngle < 1e-12 && cosAngle < 0 {
		return line, ErrAntipodal
	}
	angle := math.Atan2(sinAngle, cosAngle)
	if sinAngle > 0 {
		for k := 1; k < pieces; k++ {
			f := float64(k) / float64(pieces)
			// Spherical linear interpolation: equal angles between the
			// points, every one of them on the great circle through a and b.
			wa := math.Sin((1-f)*angle) / sinAngle
			wb := math.Sin(f*angle) / sinAngle
			x, y, z := wa*ua.x+wb*ub.x, wa*ua.y+wb*ub.y, wa*ua.z+wb*ub.z
			line = append(line, geo.Point{
				Lat: math.Atan2(z, math.Hypot(x, y)) * 180 / math.Pi,
				Lon: math.Atan2(y, x) * 180 / math.Pi,
				Ele: a.Ele + f*(b.Ele-a.Ele),
			})
		}
	}
	// b itself, exactly as given, even when it repeats a: a waypoint the
	// caller asked for is never dropped.
	return append(line, b), nil
}
