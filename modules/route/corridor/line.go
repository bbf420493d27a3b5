package corridor

import (
	"math"

	"cairn.dev/cairn/modules/route/geo"
)

// Line is a polyline prepared for distance questions: each point's
// distance from its start, and a grid of its segments so that a question
// about a point reads only the segments near it.
type Line struct {
	points []geo.Point
	along  []float64 // metres from the start to each point
	cells  map[int64][]int32
	span   float64 // the widest half-width the grid answers without a full scan
}

// lineCell is the grid of a Line's segments, in degrees (about 550 m).
const lineCell = 0.005

// NewLine prepares points; span is the largest distance (metres) later
// asked of Near or Locate with a limit: farther questions scan every
// segment.
func NewLine(points []geo.Point, span float64) *Line {
	l := &Line{points: points, along: make([]float64, len(points)), cells: map[int64][]int32{}, span: span}
	for i := 1; i < len(points); i++ {
		l.along[i] = l.along[i-1] + geo.Haversine(points[i-1], points[i])
	}
	pad := span / metresPerDegree
	for i := 0; i+1 < len(points) || (i == 0 && len(points) == 1); i++ {
		a, b := points[i], points[min(i+1, len(points)-1)]
		cosLat := math.Max(math.Cos(a.Lat*math.Pi/180), 0.01)
		minLat, maxLat := math.Min(a.Lat, b.Lat)-pad, math.Max(a.Lat, b.Lat)+pad
		minLon, maxLon := math.Min(a.Lon, b.Lon)-pad/cosLat, math.Max(a.Lon, b.Lon)+pad/cosLat
		if maxLon-minLon > 180 { // across the antimeridian: no grid, scanned
			l.cells[math.MinInt64] = append(l.cells[math.MinInt64], int32(i))
			continue
		}
		for r := cellOf(minLat); r <= cellOf(maxLat); r++ {
			for c := cellOf(minLon); c <= cellOf(maxLon); c++ {
				k := r<<32 | (c & 0xffffffff)
				l.cells[k] = append(l.cells[k], int32(i))
			}
		}
		if len(points) == 1 {
			break
		}
	}
	return l
}

func cellOf(deg float64) int64 { return int64(math.Floor(deg / lineCell)) }

// Length is the line's length in metres.
func (l *Line) Length() float64 {
	if len(l.along) == 0 {
		return 0
	}
	return l.along[len(l.along)-1]
}

// Points are the line's points.
func (l *Line) Points() []geo.Point { return l.points }

// Locate is how far p lies from the line (metres) and where along it
// (metres from its start) the nearest place is, when that is within limit
// metres; ok is false farther away. A limit above the line's span scans
// every segment.
func (l *Line) Locate(p geo.Point, limit float64) (off, along float64, ok bool) {
	if len(l.points) == 0 {
		return 0, 0, false
	}
	off = math.Inf(1)
	try := func(i int) {
		d, f := segment(l.points[i], l.points[min(i+1, len(l.points)-1)], p)
		if d < off {
			off = d
			along = l.along[i] + f*(l.along[min(i+1, len(l.points)-1)]-l.along[i])
		}
	}
	if limit > l.span {
		for i := range max(len(l.points)-1, 1) {
			try(i)
		}
	} else {
		k := cellOf(p.Lat)<<32 | (cellOf(p.Lon) & 0xffffffff)
		for _, i := range l.cells[k] {
			try(int(i))
		}
		for _, i := range l.cells[math.MinInt64] {
			try(int(i))
		}
	}
	if off > limit {
		return off, 0, false
	}
	return off, along, true
}

// At is the point along metres from the line's start (clamped to its ends).
func (l *Line) At(along float64) geo.Point {
	if len(l.points) == 0 {
		return geo.Point{}
	}
	for i := 1; i < len(l.points); i++ {
		if l.along[i] >= along {
			seg := l.along[i] - l.along[i-1]
			f := 0.0
			if seg > 0 {
				f = (along - l.along[i-1]) / seg
			}
			f = max(0, min(1, f))
			a, b := l.points[i-1], l.points[i]
			return geo.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon), Ele: a.Ele + f*(b.Ele-a.Ele)}
		}
	}
	return l.points[len(l.points)-1]
}

// segment is the distance (metres) from p to the segment a–b, and the
// fraction of the segment where its nearest point lies, in a plane
// tangent at a.
func segment(a, b, p geo.Point) (d, f float64) {
	cos := math.Cos(a.Lat * math.Pi / 180)
	bx, by := (b.Lon-a.Lon)*cos, b.Lat-a.Lat
	px, py := (p.Lon-a.Lon)*cos, p.Lat-a.Lat
	if n := bx*bx + by*by; n > 0 {
		f = max(0, min(1, (px*bx+py*by)/n))
	}
	dx, dy := px-f*bx, py-f*by
	return math.Hypot(dx, dy) * metresPerDegree, f
}

// SegmentDistance is the distance in metres from p to the segment a–b.
func SegmentDistance(a, b, p geo.Point) float64 {
	d, _ := segment(a, b, p)
	return d
}
