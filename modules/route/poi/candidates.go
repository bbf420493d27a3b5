package poi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"cairn.dev/cairn/modules/route/geo"
)

// Provider answers the accommodation candidates of a stage end. *Store (the
// default, reading the local table) and *Overpass (optional, asking a live
// Overpass API) implement it with the same rules.
type Provider interface {
	// Candidates returns at most MaxCandidates accommodations within
	// radiusKm of near (0 or less means DefaultRadiusKm; more than
	// MaxRadiusKm is clamped to it) whose type is one of types (nil or empty
	// means AccommodationTypes; an unknown type is ErrUnknownType). date is
	// the night the rider arrives; without it no candidate is marked
	// possibly closed.
	//
	// Candidates are ranked by completeness, then price (cheapest first),
	// then distance; a candidate with the same name as a better one within
	// DuplicateMeters is dropped; when the best five hold no camp_site or
	// wilderness_hut and one is left, the best such replaces the fifth.
	Candidates(ctx context.Context, near geo.Point, radiusKm float64, types []string, date *time.Time) ([]Accommodation, error)
}

// Accommodation is a candidate for the night (model.md, value objects).
type Accommodation struct {
	Name               string  `json:"name"`
	Type               string  `json:"type"`
	Lat                float64 `json:"lat"`
	Lon                float64 `json:"lon"`
	EstimatedPriceMin  float64 `json:"estimatedPriceMin"`
	EstimatedPriceMax  float64 `json:"estimatedPriceMax"`
	IsExactPrice       bool    `json:"isExactPrice"`
	URL                string  `json:"url,omitempty"`
	PossibleClosed     bool    `json:"possibleClosed"`
	DistanceToEndPoint float64 `json:"distanceToEndPoint"` // km, as the crow flies
	Source             string  `json:"source"`
	Description        string  `json:"description,omitempty"`
	OpeningHours       string  `json:"openingHours,omitempty"`
	Phone              string  `json:"phone,omitempty"`
	Address            string  `json:"address,omitempty"`
	OSMType            string  `json:"osmType,omitempty"`
	OSMID              int64   `json:"osmId,omitempty"`
}

// The limits of pipeline.md §7.
const (
	DefaultRadiusKm = 5.0
	MaxRadiusKm     = 15.0
	MaxCandidates   = 5
	// DuplicateMeters is how close two candidates of the same name must be
	// to count as one place (a node and the building way drawn around it,
	// typically).
	DuplicateMeters = 200.0
)

// ErrUnknownType refuses a type outside AccommodationTypes.
var ErrUnknownType = errors.New("poi: unknown accommodation type")

// query is one validated Candidates call.
type query struct {
	near     geo.Point
	radiusKm float64
	types    []string
	date     *time.Time
}

func newQuery(near geo.Point, radiusKm float64, types []string, date *time.Time) (query, error) {
	if math.IsNaN(near.Lat) || math.IsNaN(near.Lon) || math.Abs(near.Lat) > 90 || math.Abs(near.Lon) > 180 {
		return query{}, fmt.Errorf("poi: point out of range (%g, %g)", near.Lat, near.Lon)
	}
	switch {
	case !(radiusKm > 0): // also NaN
		radiusKm = DefaultRadiusKm
	case radiusKm > MaxRadiusKm:
		radiusKm = MaxRadiusKm
	}
	if len(types) == 0 {
		types = AccommodationTypes
	}
	for _, t := range types {
		if !IsAccommodationType(t) {
			return query{}, fmt.Errorf("%w: %q", ErrUnknownType, t)
		}
	}
	return query{near: near, radiusKm: radiusKm, types: types, date: date}, nil
}

// candidate is an accommodation with what ranks it.
type candidate struct {
	Accommodation
	id       string
	key      int // how many of the key fields are filled
	extra    int // how many other kept tags are filled
	normName string
}

// keyFields are the completeness fields of pipeline.md §7; "tags" there is
// taken to mean the other kept tags, which only break ties between equal
// counts of key fields.
var keyFields = []string{TagWebsite, TagDescription, TagOpeningHours, TagWikidata, TagStars, TagCapacity}

// choose filters, ranks, dedupes and keeps the candidates among pois.
func (q query) choose(pois []POI) []Accommodation {
	var cands []candidate
	for _, p := range pois {
		if !slices.Contains(q.types, p.Category) {
			continue
		}
		d := geo.Distance(q.near, geo.Point{Lat: p.Lat, Lon: p.Lon}) / 1000
		if d > q.radiusKm {
			continue
		}
		cands = append(cands, q.candidate(p, d))
	}
	slices.SortFunc(cands, compareCandidates)
	cands = dropDuplicates(cands)

	kept := cands[:min(MaxCandidates, len(cands))]
	if !slices.ContainsFunc(kept, isCheapType) {
		if i := slices.IndexFunc(cands, isCheapType); i >= 0 && len(kept) == MaxCandidates {
			kept[MaxCandidates-1] = cands[i]
		}
	}
	out := make([]Accommodation, len(kept))
	for i, c := range kept {
		out[i] = c.Accommodation
	}
	return out
}

func (q query) candidate(p POI, distanceKm float64) candidate {
	price := EstimatePrice(p.Category, p.Tags)
	c := candidate{
		Accommodation: Accommodation{
			Name:               p.Name,
			Type:               p.Category,
			Lat:                p.Lat,
			Lon:                p.Lon,
			EstimatedPriceMin:  price.Min,
			EstimatedPriceMax:  price.Max,
			IsExactPrice:       price.Exact,
			URL:                p.Tags[TagWebsite],
			PossibleClosed:     PossiblyClosed(p.Tags, q.date),
			DistanceToEndPoint: math.Round(distanceKm*1000) / 1000,
			Source:             p.Source,
			Description:        p.Tags[TagDescription],
			OpeningHours:       p.Tags[TagOpeningHours],
			Phone:              p.Tags[TagPhone],
			Address:            p.Tags[TagAddress],
			OSMType:            p.OSMType,
			OSMID:              p.OSMID,
		},
		id:       p.ID,
		normName: strings.ToLower(strings.Join(strings.Fields(p.Name), " ")),
	}
	for k, v := range p.Tags {
		if strings.TrimSpace(v) == "" {
			continue
		}
		if slices.Contains(keyFields, k) {
			c.key++
		} else {
			c.extra++
		}
	}
	return c
}

// compareCandidates orders the best first: more key fields, more other tags,
// cheaper (floor, then ceiling), nearer, then by id so equal candidates keep
// one order on every engine.
func compareCandidates(a, b candidate) int {
	return cmp.Or(
		cmp.Compare(b.key, a.key),
		cmp.Compare(b.extra, a.extra),
		cmp.Compare(a.EstimatedPriceMin, b.EstimatedPriceMin),
		cmp.Compare(a.EstimatedPriceMax, b.EstimatedPriceMax),
		cmp.Compare(a.DistanceToEndPoint, b.DistanceToEndPoint),
		cmp.Compare(a.id, b.id),
	)
}

// dropDuplicates keeps, of the candidates sharing a name (case and spacing
// aside) within DuplicateMeters of each other, the first, which is the best
// ranked. Unnamed candidates are never duplicates of each other.
//
// The kept ones are filed by name and by a row of latitude DuplicateMeters
// high: two places within DuplicateMeters lie in the same row or the next,
// so a candidate is compared with the few of its name around it, not with
// every one kept (a town's hotels may all be called "Hôtel").
func dropDuplicates(ranked []candidate) []candidate {
	type key struct {
		name string
		row  int64
	}
	rowOf := func(lat float64) int64 {
		return int64(math.Floor(lat * geo.EarthRadius * math.Pi / 180 / DuplicateMeters))
	}
	kept := map[key][]candidate{}
	out := ranked[:0:0]
	for _, c := range ranked {
		row := rowOf(c.Lat)
		dup := false
		for r := row - 1; r <= row+1 && !dup && c.normName != ""; r++ {
			dup = slices.ContainsFunc(kept[key{c.normName, r}], func(k candidate) bool {
				return geo.Haversine(geo.Point{Lat: k.Lat, Lon: k.Lon}, geo.Point{Lat: c.Lat, Lon: c.Lon}) <= DuplicateMeters
			})
		}
		if !dup {
			out = append(out, c)
			if c.normName != "" {
				kept[key{c.normName, row}] = append(kept[key{c.normName, row}], c)
			}
		}
	}
	return out
}

// isCheapType marks the types that keep a slot among the five: a rider on a
// budget always sees a place to pitch a tent or a free hut when one exists.
func isCheapType(c candidate) bool {
	return c.Type == TypeCampSite || c.Type == TypeWildernessHut
}
