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
// distance; of records as near, the last in record order. Only the
// records of the latitude band that can be that close are read (byLat),
// and of those only the ones within the longitude bound are measured.
func (ix *index) nearest(lat, lon, km float64) (uint32, bool) {
	band := int32(km / 111.0 * 1e5) // a degree of latitude is at least 110.5 km
	latE5, lonE5 := e5(lat), e5(lon)
	lonBand := longitudeBand(lat, float64(band)/1e5, km)
	from, _ := slices.BinarySearchFunc(ix.byLat, latE5-band, func(i uint32, t int32) int { return cmp.Compare(ix.recs[i].latE5, t) })
	best, bestM := uint32(0), km*1000
	found := false
	for _, i := range ix.byLat[from:] {
		r := &ix.recs[i]
		if r.latE5 > latE5+band {
			break
		}
		if lonBand >= 0 {
			d := r.lonE5 - lonE5
			if d < 0 {
				d = -d
			}
			if d > 180_00000 {
				d = 360_00000 - d
			}
			if d > lonBand {
				continue
			}
		}
		m := haversineM(lat, lon, float64(r.latE5)/1e5, float64(r.lonE5)/1e5)
		if m < bestM || m == bestM && (!found || i > best) {
			best, bestM, found = i, m, true
		}
	}
	return best, found
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
