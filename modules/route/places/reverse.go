package places

import (
	"cmp"
	"context"
	"errors"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"cairn.dev/cairn/modules/route/text"
)

// Reverser names the place at a position (GET /geocode/reverse): at most
// one result, none when nothing is known near it. Errors: ErrBadPosition,
// the context's error, and for providers that call out, *UpstreamError.
type Reverser interface {
	Reverse(ctx context.Context, lat, lon float64) ([]Place, error)
}

// ErrBadPosition is returned for a latitude outside -90..90 or a longitude
// outside -180..180; the caller answers 400 or 422.
var ErrBadPosition = errors.New("places: position out of range")

// MaxReverseKm is how far the gazetteer looks for the place nearest a
// position: past it, the position is in no place it knows (at sea, say).
const MaxReverseKm = 50.0

var (
	_ Reverser = (*Gazetteer)(nil)
	_ Reverser = (*Nominatim)(nil)
)

func checkPosition(lat, lon float64) error {
	if math.IsNaN(lat) || math.IsNaN(lon) || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
		return ErrBadPosition
	}
	return nil
}

// Reverse implements Reverser: the nearest place of the gazetteer within
// MaxReverseKm, its towns and villages being the places people name.
func (g *Gazetteer) Reverse(ctx context.Context, lat, lon float64) ([]Place, error) {
	if err := checkPosition(lat, lon); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	idx, err := g.load()
	if err != nil {
		return nil, err
	}
	if i, ok := idx.nearest(lat, lon, MaxReverseKm); ok {
		return []Place{idx.place(i)}, nil
	}
	return []Place{}, nil
}

// nearest is the record nearest (lat, lon) within km, by great-circle
// distance; of records as near, the last in record order.
//
// It reads the rows of latitude within reach nearest first, and in each
// walks outward from lon, both ways, within the longitude bound
// (longitudeBand). Two lower bounds of the distance stop it early, each
// only once it exceeds the nearest found, so a tie is still measured: a
// row is at least R·Δφ away, and a place of a row at least R·k·Δλ·ratio
// (the bound of longitudeBand, with sin x ≥ x·sin(X)/X for x ≤ X). In a
// dense region it measures a few places, where the band of latitude round
// the globe held thousands.
func (ix *index) nearest(lat, lon, km float64) (uint32, bool) {
	const r = 6371000.0
	rad := math.Pi / 180
	band := int32(km / 111.0 * 1e5) // a degree of latitude is at least 110.5 km
	latE5, lonE5 := e5(lat), e5(lon)
	lonBand := longitudeBand(lat, float64(band)/1e5, km)
	if lonBand < 0 || lonBand > 180_00000 {
		lonBand = 180_00000 // no bound: the whole row
	}
	halfMax := float64(lonBand) / 1e5 * rad / 2 // at most π/2: lonBand is at most 180°
	ratio := 1.0
	if halfMax > 0 {
		ratio = math.Sin(halfMax) / halfMax
	}
	best, bestM := uint32(0), km*1000
	found := false
	const slack = 1.0 // a metre: the bounds and the distance round apart
	measure := func(i uint32) {
		rec := &ix.recs[i]
		if rec.latE5 < latE5-band || rec.latE5 > latE5+band {
			return
		}
		m := haversineM(lat, lon, float64(rec.latE5)/1e5, float64(rec.lonE5)/1e5)
		if m < bestM || m == bestM && (!found || i > best) {
			best, bestM, found = i, m, true
		}
	}
	centre, first, last := rowOf(latE5), rowOf(latE5-band), rowOf(latE5+band)
	for step := 0; centre-step >= first || centre+step <= last; step++ {
		for k, row := range [2]int{centre - step, centre + step} {
			if row < first || row > last || k == 1 && step == 0 { // the centre once
				continue
			}
			// The row's nearest latitude, and its farthest from the equator.
			south, north := int32(row*rowE5-90_00000), int32((row+1)*rowE5-90_00000)
			near := min(max(latE5, south), north)
			if r*math.Abs(float64(latE5-near))/1e5*rad > bestM+slack {
				continue
			}
			edge := math.Min(math.Max(math.Abs(float64(south)), math.Abs(float64(north)))/1e5, 90)
			perE5 := r * math.Sqrt(math.Max(math.Cos(lat*rad)*math.Cos(edge*rad), 0)) * ratio * rad / 1e5
			ix.walkRow(row, lonE5, lonBand, func(i uint32, dLon int32) bool {
				if perE5*float64(dLon) > bestM+slack {
					return false
				}
				measure(i)
				return true
			})
		}
	}
	return best, found
}

// walkRow calls visit for the records of row within lonBand of lonE5 (in
// 1e-5 degrees, across the antimeridian), each way outward from lonE5 in
// order of longitude, with the difference of longitude, while visit says
// to go on.
func (ix *index) walkRow(row int, lonE5, lonBand int32, visit func(i uint32, dLon int32) bool) {
	recs := ix.rows[ix.rowStart[row]:ix.rowStart[row+1]]
	n := len(recs)
	if n == 0 {
		return
	}
	at, _ := slices.BinarySearchFunc(recs, lonE5, func(i uint32, t int32) int { return cmp.Compare(ix.recs[i].lonE5, t) })
	// Eastward from at, then westward from at-1, each wrapping round the
	// row; the west reads only what the east left, so a record is visited
	// at most once in all.
	east := 0
	for ; east < n; east++ {
		i := recs[(at+east)%n]
		d := ix.recs[i].lonE5 - lonE5
		if d < 0 {
			d += 360_00000
		}
		if d > lonBand || !visit(i, d) {
			break
		}
	}
	for k := 1; k <= n-east; k++ {
		i := recs[((at-k)%n+n)%n]
		d := lonE5 - ix.recs[i].lonE5
		if d < 0 {
			d += 360_00000
		}
		if d > lonBand || !visit(i, d) {
			break
		}
	}
}

// longitudeBand is, in 1e-5 degrees, the largest difference of longitude
// a place within km of (lat, lon) can have, when the places looked at lie
// within band degrees of lat; -1 when no bound holds (near a pole). The
// haversine's a is at least cos φ1 cos φ2 sin²(Δλ/2), and cos φ2 at least
// the cosine of the band's edge farthest from the equator, so beyond the
// bound the distance exceeds km: a lower bound, never a guess. Without it
// a reverse lookup measured every place of the latitude band round the
// globe, a few thousand great circles, for each end of each day.
func longitudeBand(lat, band, km float64) int32 {
	const r = 6371000.0
	rad := math.Pi / 180
	edge := math.Min(math.Abs(lat)+band, 90)
	c := math.Cos(lat*rad) * math.Cos(edge*rad)
	if c <= 1e-12 {
		return -1
	}
	s := math.Sin(km*1000/(2*r)) / math.Sqrt(c)
	if s >= 1 {
		return -1
	}
	return int32(math.Ceil(2*math.Asin(s)/rad*1e5)) + 1 // a unit of slack for the rounding of e5
}

// haversineM is the great-circle distance in metres (R = 6 371 km).
func haversineM(lat1, lon1, lat2, lon2 float64) float64 {
	const r = 6371000.0
	rad := math.Pi / 180
	dLat, dLon := (lat2-lat1)*rad, (lon2-lon1)*rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * r * math.Asin(math.Min(1, math.Sqrt(a)))
}

// Reverse implements Reverser with Nominatim's /reverse: its answer for a
// position, named after the city, town, village, hamlet or municipality of
// its address, in that order of preference. "Unable to geocode" is an
// empty answer, not an error. Answers are cached and the throttle shared
// with Search.
func (n *Nominatim) Reverse(ctx context.Context, lat, lon float64) ([]Place, error) {
	if err := checkPosition(lat, lon); err != nil {
		return nil, err
	}
	// Five decimals is a metre: positions closer than that share an answer.
	key := "places:nominatim:reverse:" + strconv.FormatFloat(lat, 'f', 5, 64) + "," + strconv.FormatFloat(lon, 'f', 5, 64)
	if got, ok := n.cache.Get(ctx, key); ok {
		return got, nil
	}
	if err := n.throttle.Wait(ctx); err != nil {
		return nil, err
	}
	if got, ok := n.cache.Get(ctx, key); ok {
		return got, nil
	}
	got, err := n.fetchReverse(ctx, lat, lon)
	if err != nil {
		return nil, err
	}
	n.cache.Set(ctx, key, got, n.ttl)
	return got, nil
}

func (n *Nominatim) fetchReverse(ctx context.Context, lat, lon float64) ([]Place, error) {
	u := *n.search
	u.Path = strings.TrimSuffix(u.Path, "search") + "reverse"
	v := url.Values{}
	v.Set("lat", strconv.FormatFloat(lat, 'f', -1, 64))
	v.Set("lon", strconv.FormatFloat(lon, 'f', -1, 64))
	v.Set("zoom", "14") // a town or a village, not a house
	var raw reverseResult
	if err := n.getJSON(ctx, u, v, &raw); err != nil {
		return nil, err
	}
	if raw.Error != "" {
		return []Place{}, nil // nothing at this position
	}
	p, ok := raw.place()
	if !ok {
		return []Place{}, nil
	}
	return []Place{p}, nil
}

// reverseResult is the part of a format=jsonv2 /reverse answer Place needs.
type reverseResult struct {
	Error       string `json:"error"`
	Lat         string `json:"lat"`
	Lon         string `json:"lon"`
	Name        string `json:"name"`
	DisplayName string `json:"display_name"`
	AddressType string `json:"addresstype"`
	Type        string `json:"type"`
	Address     struct {
		City         string `json:"city"`
		Town         string `json:"town"`
		Village      string `json:"village"`
		Hamlet       string `json:"hamlet"`
		Municipality string `json:"municipality"`
		CountryCode  string `json:"country_code"`
	} `json:"address"`
}

// place names the answer after its settlement, cleaned as every
// Nominatim text is (package text); the object's own name only when the
// address names no settlement.
func (r reverseResult) place() (Place, bool) {
	res := nominatimResult{Lat: r.Lat, Lon: r.Lon, Name: r.Name, DisplayName: r.DisplayName, Type: r.Type, AddressType: r.AddressType}
	res.Address.CountryCode = r.Address.CountryCode
	a := r.Address
	for _, k := range []struct{ name, typ string }{
		{a.City, TypeCity}, {a.Town, TypeTown}, {a.Village, TypeVillage}, {a.Hamlet, TypeVillage}, {a.Municipality, TypePlace},
	} {
		if name := text.Clean(k.name, text.MaxName); name != "" {
			res.Name, res.AddressType, res.Type = name, k.typ, k.typ
			break
		}
	}
	return res.place()
}
