package osmfixture

import (
	"math"
	"math/rand/v2"

	"cairn.dev/cairn/modules/route/corridor"
	"cairn.dev/cairn/modules/route/geo"
)

// Extract is a small extract written element by element, for tests that
// place each thing where a rule must find it.
type Extract struct {
	nodes []Node
	ways  []Way
	next  int64
}

func (e *Extract) id() int64 { e.next++; return e.next }

// Place adds a tagged node at p and returns its id.
func (e *Extract) Place(p geo.Point, tags ...Tag) int64 {
	n := Node{ID: e.id(), Lat: p.Lat, Lon: p.Lon, Tags: tags}
	e.nodes = append(e.nodes, n)
	return n.ID
}

// Line adds a way through fresh nodes at pts and returns its id.
func (e *Extract) Line(pts []geo.Point, tags ...Tag) int64 {
	w := Way{Tags: tags}
	for _, p := range pts {
		w.Refs = append(w.Refs, e.Place(p))
	}
	w.ID = e.id()
	e.ways = append(e.ways, w)
	return w.ID
}

// Write writes the extract to w and closes it.
func (e *Extract) Write(w Writer) error {
	for _, n := range e.nodes {
		if err := w.Node(n); err != nil {
			return err
		}
	}
	for _, x := range e.ways {
		if err := w.Way(x); err != nil {
			return err
		}
	}
	return w.Close()
}

// Offset moves p by north and east metres.
func Offset(p geo.Point, north, east float64) geo.Point {
	const m = geo.EarthRadius * math.Pi / 180
	return geo.Point{Lat: p.Lat + north/m, Lon: p.Lon + east/(m*math.Cos(p.Lat*math.Pi/180))}
}

// Spec sizes a generated extract along a route.
type Spec struct {
	Points   int     // tagged places, of every category the rules read
	Segments int     // way segments, in ways of ten
	Width    float64 // metres either side of the route the elements spread over; default 15 km
	Seed     uint64
}

// wayNodes is how many nodes each generated way has (ten segments).
const wayNodes = 11

// segmentLength is the length of a generated way's segments, in metres.
const segmentLength = 40.0

// placeTags are the kinds of place a generated extract holds, in turn.
var placeTags = [][]Tag{
	{{"amenity", "drinking_water"}},
	{{"shop", "supermarket"}, {"name", "Supermarché"}, {"opening_hours", "Mo-Sa 08:00-20:00"}},
	{{"shop", "bakery"}, {"name", "Boulangerie"}, {"opening_hours", "Tu-Su 07:00-13:00"}},
	{{"amenity", "cafe"}, {"name", "Café"}},
	{{"amenity", "restaurant"}, {"name", "Restaurant"}, {"opening_hours", "Mo-Su 12:00-14:00,19:00-22:00"}},
	{{"shop", "bicycle"}, {"name", "Cycles"}, {"service:bicycle:repair", "yes"}},
	{{"amenity", "pharmacy"}, {"name", "Pharmacie"}},
	{{"railway", "station"}, {"name", "Gare"}},
	{{"tourism", "museum"}, {"name", "Musée"}},
	{{"tourism", "camp_site"}, {"name", "Camping"}},
	{{"tourism", "hotel"}, {"name", "Hôtel"}},
	{{"amenity", "charging_station"}, {"bicycle", "yes"}},
	{{"ford", "yes"}},
}

// roadTags are the kinds of road a generated extract holds, in turn.
var roadTags = [][]Tag{
	{{"highway", "residential"}, {"surface", "asphalt"}},
	{{"highway", "track"}, {"surface", "gravel"}, {"tracktype", "grade3"}},
	{{"highway", "primary"}, {"maxspeed", "80"}},
	{{"highway", "secondary"}, {"maxspeed", "70"}},
	{{"highway", "tertiary"}},
	{{"highway", "cycleway"}, {"surface", "asphalt"}},
	{{"highway", "path"}, {"surface", "dirt"}},
	{{"highway", "unclassified"}, {"surface", "compacted"}},
}

// Generate writes an extract spread along route (a trip's line) to w and
// closes it: s.Points tagged places and s.Segments way segments, a fifth
// of the ways running along the route itself (what a trip rides), the
// rest crossing the land around it. It is deterministic for a seed and
// holds nothing but one block in memory: the ways' nodes are written
// first, from the same numbers the ways are later written from.
func Generate(w Writer, route []geo.Point, s Spec) error {
	if s.Width <= 0 {
		s.Width = 15_000
	}
	line := corridor.NewLine(route, 0)
	length := line.Length()
	ways := s.Segments / (wayNodes - 1)
	base := int64(s.Points) + 1 // node ids of the ways' nodes start here

	r := rand.New(rand.NewPCG(s.Seed, 1))
	for i := range s.Points {
		p := Offset(line.At(r.Float64()*length), (r.Float64()*2-1)*s.Width, (r.Float64()*2-1)*s.Width*0.2)
		if err := w.Node(Node{ID: int64(i + 1), Lat: p.Lat, Lon: p.Lon, Tags: placeTags[i%len(placeTags)]}); err != nil {
			return err
		}
	}
	for k := range ways {
		for j, p := range wayPoints(line, length, k, s) {
			if err := w.Node(Node{ID: base + int64(k*wayNodes+j), Lat: p.Lat, Lon: p.Lon}); err != nil {
				return err
			}
		}
	}
	// The land along the route, every 500 m: an extract holds nodes
	// everywhere it covers, however few places it has.
	next := base + int64(ways*wayNodes)
	for d := 0.0; d <= length; d += 500 {
		p := line.At(d)
		if err := w.Node(Node{ID: next, Lat: p.Lat, Lon: p.Lon}); err != nil {
			return err
		}
		next++
	}
	for k := range ways {
		refs := make([]int64, wayNodes)
		for j := range refs {
			refs[j] = base + int64(k*wayNodes+j)
		}
		if err := w.Way(Way{ID: int64(k + 1), Refs: refs, Tags: roadTags[k%len(roadTags)]}); err != nil {
			return err
		}
	}
	return w.Close()
}

// wayPoints are the nodes of generated way k: along the route for one way
// in five, else a straight line at a random place and heading.
func wayPoints(line *corridor.Line, length float64, k int, s Spec) []geo.Point {
	r := rand.New(rand.NewPCG(s.Seed, uint64(k)+2))
	at := r.Float64() * length
	out := make([]geo.Point, wayNodes)
	if k%5 == 0 {
		for j := range out {
			out[j] = line.At(at + float64(j)*segmentLength)
		}
		return out
	}
	start := Offset(line.At(at), (r.Float64()*2-1)*s.Width, (r.Float64()*2-1)*s.Width*0.2)
	heading := r.Float64() * 2 * math.Pi
	for j := range out {
		d := float64(j) * segmentLength
		out[j] = Offset(start, d*math.Cos(heading), d*math.Sin(heading))
	}
	return out
}
