package trips

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/registry"
)

// In-ride search bounds (model.md): a category's default radius, any
// radius clamped to 1 to 20 km, at most three places answered.
const (
	MinNearbyRadius = 1000  // m
	MaxNearbyRadius = 20000 // m
	MaxNearby       = 3
)

// nearbyCategory is what one in-ride category means: its default radius
// and the kinds of place of the local index that answer it (none: the
// index holds nothing of the kind, so every answer is out of coverage).
type nearbyCategory struct {
	radius int
	kinds  []string
}

// NearbyCategories are the in-ride categories, each answered from the
// kinds of place of the local index that serve it.
var NearbyCategories = map[string]nearbyCategory{
	"water":    {radius: 3000, kinds: poi.WaterCategories},
	"shelter":  {radius: 3000, kinds: []string{poi.TypeAlpineHut, poi.TypeWildernessHut}},
	"food":     {radius: 3000, kinds: []string{"restaurant", "cafe", "bar", "fast_food", "bakery"}},
	"resupply": {radius: 5000, kinds: poi.ResupplyCategories},
	"health":   {radius: 5000, kinds: poi.HealthCategories},
	"mechanic": {radius: 10000, kinds: poi.BikeShopCategories},
	"train":    {radius: 10000, kinds: poi.StationCategories},
	"charging": {radius: 10000, kinds: poi.ChargerCategories},
}

// PositionInput is where the rider is.
type PositionInput struct {
	Lat float64 `json:"lat" minimum:"-90" maximum:"90" doc:"Latitude in degrees."`
	Lon float64 `json:"lon" minimum:"-180" maximum:"180" doc:"Longitude in degrees."`
}

// NearbyInput asks what is near the rider.
type NearbyInput struct {
	Category     string        `json:"category" enum:"water,shelter,food,resupply,mechanic,health,train,charging" doc:"What to look for: water, shelter, food, resupply, mechanic, health, train or charging."`
	Position     PositionInput `json:"position" doc:"Where the rider is."`
	RadiusMeters *int          `json:"radiusMeters,omitempty" exclusiveMinimum:"0" maximum:"1000000" doc:"Search radius in metres, clamped to 1000..20000 (default: 3000 for water, shelter and food, 5000 for resupply and health, 10000 otherwise)."`
	StageDay     *int          `json:"stageDay,omitempty" minimum:"1" doc:"The day being ridden (1 for the first), when known."`
}

// NearbyPlace is one place near the rider. Its name is third-party text.
type NearbyPlace struct {
	Name           string  `json:"name" doc:"Name, as the source gives it (third-party text)."`
	Category       string  `json:"category" doc:"The category asked for."`
	Kind           string  `json:"kind" doc:"What the place is in the source (e.g. alpine_hut)."`
	Lat            float64 `json:"lat" doc:"Latitude."`
	Lon            float64 `json:"lon" doc:"Longitude."`
	DistanceMeters int     `json:"distanceMeters" doc:"Metres from the position, as the crow flies."`
	OpeningHours   *string `json:"openingHours,omitempty" doc:"Opening hours, when known."`
	Website        *string `json:"website,omitempty" doc:"Website, when known."`
	OsmType        *string `json:"osmType,omitempty" doc:"node or way."`
	OsmID          *int64  `json:"osmId,omitempty" doc:"OpenStreetMap id."`
}

// Nearby is the answer of an in-ride search.
type Nearby struct {
	TripID        string        `json:"tripId" doc:"The trip searched for."`
	Category      string        `json:"category" doc:"The category searched."`
	RadiusMeters  int           `json:"radiusMeters" doc:"The radius applied, after clamping."`
	StageDay      *int          `json:"stageDay,omitempty" doc:"The day given, when one was."`
	TotalFound    int           `json:"totalFound" doc:"How many places lie within the radius."`
	CapReached    bool          `json:"capReached" doc:"True when more places were found than are answered (at most 3, nearest first)."`
	OutOfCoverage bool          `json:"outOfCoverage" doc:"True when the local data cannot answer here: it holds no place of this category at all, or nothing of any kind within 20 km. An empty answer then says nothing of the ground."`
	POIs          []NearbyPlace `json:"pois" doc:"The nearest places, at most 3."`
}

// CarriesThirdPartyText implements registry.ThirdParty: names are map data.
func (Nearby) CarriesThirdPartyText() {}

// boxIndex is the part of the local places index the in-ride search reads.
type boxIndex interface {
	InBox(ctx context.Context, b poi.Box, categories []string) ([]poi.POI, error)
}

func (t *Trips) declareNearby(reg *registry.Registry) {
	registry.Add(reg, registry.Op[NearbyInput, Nearby]{
		ID:      "trips.nearby_pois",
		Summary: "Find water, shelter, food and help near the rider",
		HTTP:    registry.Post("/trips/{id}/nearby-pois", http.StatusOK).Reading(), // a search, its body the query
		Tool:    registry.NotATool(registry.MotiveLiveDevice),

		Scope:        scopes.TripsRead,
		Owner:        registry.ByURIVariable("id", t.store.Owns),
		RateLimit:    registry.PerUser(30, time.Minute),
		Load:         t.loadDays,
		Merge:        t.mergeNearby,
		Validate:     registry.ValidateWith(validateDays),
		Lock:         registry.NoLock, // a search on the road: a started trip is where it is needed
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},
		Record:       (*NearbyInput)(nil), // nothing is written: the search judges its own arguments

		Handle: t.nearby,
	})
}

// mergeNearby writes nothing; it judges the day given against the trip.
func (t *Trips) mergeNearby(_ context.Context, c *registry.Call, in *NearbyInput) (registry.Record, error) {
	d := c.Previous.(*Days).clone()
	if _, ok := NearbyCategories[in.Category]; !ok {
		d.refuse("category", "must be one of water, shelter, food, resupply, mechanic, health, train, charging")
	}
	if in.StageDay != nil && (*in.StageDay < 1 || *in.StageDay > len(d.Stages)) {
		d.refuse("stageDay", fmt.Sprintf("is not a day of this trip (1 to %d)", len(d.Stages)))
	}
	return d, nil
}

// nearbyRadius is the radius applied: the category's default, or the one
// asked for clamped to 1 to 20 km.
func nearbyRadius(category string, asked *int) int {
	if asked == nil {
		return NearbyCategories[category].radius
	}
	return min(max(*asked, MinNearbyRadius), MaxNearbyRadius)
}

func (t *Trips) nearby(ctx context.Context, c *registry.Call, in *NearbyInput) (Nearby, error) {
	cat := NearbyCategories[in.Category]
	out := Nearby{TripID: c.Var("id"), Category: in.Category, RadiusMeters: nearbyRadius(in.Category, in.RadiusMeters),
		StageDay: in.StageDay, POIs: []NearbyPlace{}}
	index, ok := t.places.(boxIndex)
	if !ok || len(cat.kinds) == 0 {
		out.OutOfCoverage = true // nothing local holds this category: say so rather than "none"
		return out, nil
	}
	at := geo.Point{Lat: in.Position.Lat, Lon: in.Position.Lon}
	found, err := index.InBox(ctx, poi.BoxAround(at, float64(out.RadiusMeters)/1000), cat.kinds)
	if err != nil {
		return Nearby{}, err
	}
	type near struct {
		p poi.POI
		d float64
	}
	var inside []near
	for _, p := range found {
		if d := geo.Haversine(at, geo.Point{Lat: p.Lat, Lon: p.Lon}); d <= float64(out.RadiusMeters) {
			inside = append(inside, near{p, d})
		}
	}
	slices.SortFunc(inside, func(a, b near) int { return cmp.Compare(a.d, b.d) })
	out.TotalFound = len(inside)
	out.CapReached = len(inside) > MaxNearby
	for _, n := range inside[:min(len(inside), MaxNearby)] {
		out.POIs = append(out.POIs, nearbyPlace(in.Category, n.p, n.d))
	}
	if out.TotalFound == 0 {
		// Nothing here: is that the ground, or the data? Data of any kind
		// within the largest radius means the area was imported.
		around, err := index.InBox(ctx, poi.BoxAround(at, MaxNearbyRadius/1000), nil)
		if err != nil {
			return Nearby{}, err
		}
		out.OutOfCoverage = !slices.ContainsFunc(around, func(p poi.POI) bool {
			return geo.Haversine(at, geo.Point{Lat: p.Lat, Lon: p.Lon}) <= MaxNearbyRadius
		})
	}
	return out, nil
}

func nearbyPlace(category string, p poi.POI, d float64) NearbyPlace {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	n := NearbyPlace{Name: p.Name, Category: category, Kind: p.Category, Lat: p.Lat, Lon: p.Lon, DistanceMeters: int(d + 0.5),
		OpeningHours: opt(p.Tags[poi.TagOpeningHours]), Website: opt(p.Tags[poi.TagWebsite]), OsmType: opt(p.OSMType)}
	if p.OSMID != 0 {
		id := p.OSMID
		n.OsmID = &id
	}
	return n
}
