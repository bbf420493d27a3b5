package alerts

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"cairn.dev/cairn/modules/route/corridor"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/words"
)

// RideWidth is how close to a mapped way a stage's line must run to ride
// it (pipeline.md §7: 20 m).
const RideWidth = 20.0

// rideStep is how often the line is sampled to find the way ridden.
const rideStep = 10.0

// WayLine is a mapped way as the store gives it: one or more runs of
// points (a way is kept in chunks).
type WayLine struct {
	WayID  int64
	Tags   map[string]string
	Points []geo.Point
}

// Ride tells which ways a stage rides along: the line sampled every 10 m,
// each sample given to the nearest way within RideWidth, the samples of a
// way adding up to its length ridden and cut into its stretches.
func Ride(line []geo.Point, ways []WayLine) []Ridden {
	if len(line) < 2 || len(ways) == 0 {
		return nil
	}
	type seg struct {
		a, b geo.Point
		way  int
	}
	type sample struct {
		p  geo.Point
		at float64
	}
	// The line sampled every rideStep metres, and the cells of the
	// samples: only segments reaching those are filed.
	var samples []sample
	walked, next := 0.0, 0.0
	for k := 1; k < len(line); k++ {
		a, b := line[k-1], line[k]
		d := geo.Haversine(a, b)
		for next <= walked+d {
			f := 0.0
			if d > 0 {
				f = (next - walked) / d
			}
			samples = append(samples, sample{geo.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon)}, next})
			next += rideStep
		}
		walked += d
	}
	// A grid of rideCell cells: a sample reads only the segments that can
	// lie within RideWidth of it, a few per way running beside it, where a
	// grid of corridor tiles would hand it every segment of the tile.
	cellOf := make(map[int64]int32, len(samples)/4)
	for _, s := range samples {
		k := rideKey(rideCellOf(s.p.Lat), rideCellOf(s.p.Lon))
		if _, ok := cellOf[k]; !ok {
			cellOf[k] = int32(len(cellOf))
		}
	}
	grid := make([][]seg, len(cellOf))
	pad := RideWidth / (geo.EarthRadius * math.Pi / 180)
	for w, wl := range ways {
		for k := 1; k < len(wl.Points); k++ {
			s := seg{wl.Points[k-1], wl.Points[k], w}
			if math.Abs(s.a.Lon-s.b.Lon) > 180 {
				continue // across the antimeridian: its distances in a tangent plane mean nothing, no sample rides it
			}
			// every sampled cell the segment's box, padded by RideWidth, touches
			padLon := pad / math.Max(math.Cos(s.a.Lat*math.Pi/180), 0.01)
			r0, r1 := rideCellOf(math.Min(s.a.Lat, s.b.Lat)-pad), rideCellOf(math.Max(s.a.Lat, s.b.Lat)+pad)
			c0, c1 := rideCellOf(math.Min(s.a.Lon, s.b.Lon)-padLon), rideCellOf(math.Max(s.a.Lon, s.b.Lon)+padLon)
			for row := r0; row <= r1; row++ {
				for col := c0; col <= c1; col++ {
					if i, ok := cellOf[rideKey(row, col)]; ok {
						grid[i] = append(grid[i], s)
					}
				}
			}
		}
	}
	byWay := map[int]*Ridden{}
	last, lastAt := -1, -1.0
	for _, sm := range samples {
		p, at := sm.p, sm.at
		best, bestD := -1, RideWidth
		for _, s := range grid[cellOf[rideKey(rideCellOf(p.Lat), rideCellOf(p.Lon))]] {
			if d := corridor.SegmentDistance(s.a, s.b, p); d <= bestD {
				best, bestD = s.way, d
			}
		}
		if best < 0 {
			last = -1
			continue
		}
		r := byWay[best]
		if r == nil {
			r = &Ridden{WayID: ways[best].WayID, Tags: ways[best].Tags}
			byWay[best] = r
		}
		r.Length += rideStep
		if last != best || at-lastAt > rideStep*1.5 {
			r.Stretches = append(r.Stretches, nil)
		}
		r.Stretches[len(r.Stretches)-1] = append(r.Stretches[len(r.Stretches)-1], p)
		last, lastAt = best, at
	}
	out := make([]Ridden, 0, len(byWay))
	for _, r := range byWay {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Ridden) int { return int(a.WayID - b.WayID) })
	return out
}

// rideCell is the side of Ride's grid in degrees (about 55 m of latitude):
// a little more than RideWidth, so that a way's segment is filed in a few
// cells only.
const rideCell = 0.0005

func rideCellOf(deg float64) int64 { return int64(math.Floor(deg / rideCell)) }

func rideKey(row, col int64) int64 { return row<<32 | (col & 0xffffffff) }

// MinRough is the total ridden on rough surfaces from which a stage is
// told (surface_rough), and MinTraffic the length of one busy road
// (traffic_*), in metres.
const (
	MinRough   = 500.0
	MinTraffic = 500.0
)

var roughSurfaces = []string{"unpaved", "gravel", "dirt", "ground", "grass", "sand", "mud", "compacted",
	"fine_gravel", "pebblestone", "earth", "clay", "rock", "stone", "woodchips", "wood", "metal", "sett",
	"cobblestone", "unhewn_cobblestone", "paving_stones"}

var roughSmoothness = []string{"bad", "very_bad", "horrible", "very_horrible", "impassable"}

// roughness is what makes a way rough ("gravel", "tracktype=grade4"), or
// "" when it is not.
func roughness(tags map[string]string) string {
	if s, ok := tags["surface"]; ok {
		for part := range strings.SplitSeq(s, ";") {
			if part = strings.TrimSpace(part); slices.Contains(roughSurfaces, part) {
				return part
			}
		}
		return ""
	}
	switch tags["tracktype"] {
	case "grade3", "grade4", "grade5":
		return "tracktype=" + tags["tracktype"]
	}
	if slices.Contains(roughSmoothness, tags["smoothness"]) {
		return "smoothness=" + tags["smoothness"]
	}
	return ""
}

// maxStretches bounds the stretches an action draws: the longest ones, each
// by its two ends, so that a day's read stays small.
const maxStretches = 3

// SurfaceRough reports a riding stage riding 500 m or more in all on
// unpaved or broken surfaces (surface_rough, warning), listing them.
func SurfaceRough(i int, s Stage, ridden []Ridden) []Alert {
	if s.IsRestDay {
		return nil
	}
	total := 0.0
	var kinds []string
	var stretches [][]geo.Point
	for _, r := range ridden {
		k := roughness(r.Tags)
		if k == "" {
			continue
		}
		total += r.Length
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
		stretches = append(stretches, r.Stretches...)
	}
	if total < MinRough {
		return nil
	}
	sort.Strings(kinds)
	a := alert(CodeSurfaceRough, SeverityWarning, i, "alert.surface_rough",
		words.Args{"day": i + 1, "km": total / 1000, "surfaces": strings.Join(kinds, ", ")})
	a.Action = stretchesAction(&a, stretches)
	return []Alert{a}
}

// stretchesAction navigates to the first of the longest stretches and
// draws them, each by its ends.
func stretchesAction(a *Alert, stretches [][]geo.Point) *Action {
	if len(stretches) == 0 {
		return nil
	}
	sorted := slices.Clone(stretches)
	slices.SortStableFunc(sorted, func(x, y []geo.Point) int { return len(y) - len(x) })
	sorted = sorted[:min(maxStretches, len(sorted))]
	ends := make([][]geo.Point, len(sorted))
	for k, st := range sorted {
		ends[k] = []geo.Point{st[0], st[len(st)-1]}
	}
	a.Lat, a.Lon = coords(ends[0][0])
	return navigate("action.show_stretches", ends[0][0], ends...)
}

// hasCycleInfra reports whether a road carries cycle infrastructure: any
// cycleway tag but no or none, or bicycle=designated or use_sidepath.
func hasCycleInfra(tags map[string]string) bool {
	for _, k := range []string{"cycleway", "cycleway:left", "cycleway:right", "cycleway:both"} {
		if v, ok := tags[k]; ok && v != "no" && v != "none" {
			return true
		}
	}
	return tags["bicycle"] == "designated" || tags["bicycle"] == "use_sidepath"
}

// MaxSpeed reads a maxspeed value in km/h ("50", "50 km/h", "FR:50",
// "30 mph"); ok false when it says no number.
func MaxSpeed(v string) (float64, bool) {
	v = strings.TrimSpace(v)
	if _, after, found := strings.Cut(v, ":"); found {
		v = after
	}
	mph := strings.HasSuffix(v, "mph")
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(v, "mph"), "km/h"))
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 || math.IsInf(n, 0) {
		return 0, false
	}
	if mph {
		n *= 1.609344
	}
	return n, true
}

// Traffic reports the busy roads a riding stage rides 500 m or more of,
// each, without cycle infrastructure: primary and trunk roads
// (traffic_main_road, critical), secondary roads faster than 50 km/h
// (traffic_secondary_road_fast, warning) and the other secondary roads,
// their limit 50 or less or unreadable (traffic_secondary_road_slow,
// nudge). One alert per kind and stage, with the count and total length.
func Traffic(i int, s Stage, ridden []Ridden) []Alert {
	if s.IsRestDay {
		return nil
	}
	type group struct {
		count     int
		length    float64
		stretches [][]geo.Point
	}
	groups := map[Code]*group{}
	for _, r := range ridden {
		if r.Length < MinTraffic || hasCycleInfra(r.Tags) {
			continue
		}
		var code Code
		switch strings.TrimSuffix(r.Tags["highway"], "_link") {
		case "primary", "trunk":
			code = CodeTrafficMainRoad
		case "secondary":
			code = CodeTrafficSecondaryRoadSlow
			if v, ok := MaxSpeed(r.Tags["maxspeed"]); ok && v > 50 {
				code = CodeTrafficSecondaryRoadFast
			}
		default:
			continue
		}
		g := groups[code]
		if g == nil {
			g = &group{}
			groups[code] = g
		}
		g.count++
		g.length += r.Length
		g.stretches = append(g.stretches, r.Stretches...)
	}
	var out []Alert
	for _, c := range []struct {
		code Code
		sev  Severity
	}{{CodeTrafficMainRoad, SeverityCritical}, {CodeTrafficSecondaryRoadFast, SeverityWarning}, {CodeTrafficSecondaryRoadSlow, SeverityNudge}} {
		g := groups[c.code]
		if g == nil {
			continue
		}
		a := alert(c.code, c.sev, i, "alert."+string(c.code), words.Args{"day": i + 1, "count": g.count, "km": g.length / 1000})
		a.Action = stretchesAction(&a, g.stretches)
		out = append(out, a)
	}
	return out
}
