package poi

import (
	"slices"

	"cairn.dev/cairn/modules/route/text"
)

// The categories of the places the alert rules read, beyond the
// accommodation types. Each is the OpenStreetMap value that tells it
// (amenity=cafe is "cafe", shop=bicycle is "bicycle").
const (
	CategoryDrinkingWater = "drinking_water"
	CategoryBicycleShop   = "bicycle"
	CategoryRepairStation = "bicycle_repair_station"
	CategoryCharger       = "charging_station"
	CategoryStation       = "station"
	CategoryHalt          = "halt"
	CategoryPharmacy      = "pharmacy"
	CategoryHospital      = "hospital"
	CategoryClinic        = "clinic"
	CategoryFord          = "ford"
)

// Groups of categories, as the rules of pipeline.md §8 name them.
var (
	// ResupplyCategories are where a rider buys food (resupply_none_on_stage).
	ResupplyCategories = []string{"restaurant", "cafe", "bar", "supermarket", "convenience", "bakery", "fast_food",
		"marketplace", "butcher", "pastry", "deli", "greengrocer", "general", "farm", "fuel"}
	// WaterCategories are where a rider fills bottles (water_point_gap).
	WaterCategories    = []string{CategoryDrinkingWater}
	BikeShopCategories = []string{CategoryBicycleShop, CategoryRepairStation}
	ChargerCategories  = []string{CategoryCharger}
	StationCategories  = []string{CategoryStation, CategoryHalt}
	HealthCategories   = []string{CategoryPharmacy, CategoryHospital, CategoryClinic}
	// CulturalCategories are what a rider may stop to see.
	CulturalCategories = []string{"museum", "monument", "castle", "church", "viewpoint", "attraction", "memorial", "ruins", "artwork"}
	FordCategories     = []string{CategoryFord}
)

// Categories is every category the store keeps: the accommodation types,
// then the groups above.
func Categories() []string {
	out := slices.Clone(AccommodationTypes)
	for _, g := range [][]string{ResupplyCategories, WaterCategories, BikeShopCategories, ChargerCategories,
		StationCategories, HealthCategories, CulturalCategories, FordCategories} {
		out = append(out, g...)
	}
	return out
}

// Classify tells the category of an element from its tags, read through
// get, or ok false when it is no place the rules use. The first reading
// wins: a hotel with a restaurant is a hotel.
func Classify(get func(key string) string) (category string, ok bool) {
	v := func(k string) string { return text.Clean(get(k), text.MaxValue) }
	if t := v("tourism"); IsAccommodationType(t) {
		return t, true
	}
	switch a := v("amenity"); a {
	case "restaurant", "cafe", "bar", "fast_food", "marketplace", "fuel", CategoryDrinkingWater,
		CategoryCharger, CategoryPharmacy, CategoryHospital, CategoryClinic, CategoryRepairStation:
		return a, true
	case "water_point":
		if v("drinking_water") != "no" {
			return CategoryDrinkingWater, true
		}
	case "place_of_worship":
		if v("building") == "church" || v("building") == "chapel" || v("building") == "cathedral" || v("religion") == "christian" {
			return "church", true
		}
	}
	switch s := v("shop"); s {
	case "supermarket", "convenience", "bakery", "butcher", "pastry", "deli", "greengrocer", "general", "farm", CategoryBicycleShop:
		return s, true
	}
	if (v("man_made") == "water_tap" || v("natural") == "spring") && v("drinking_water") == "yes" {
		return CategoryDrinkingWater, true
	}
	switch r := v("railway"); r {
	case CategoryStation, CategoryHalt:
		if st := v("station"); st != "subway" && st != "light_rail" && v("usage") != "tourism" {
			return r, true
		}
	}
	if h := v("healthcare"); h == CategoryPharmacy || h == CategoryHospital || h == CategoryClinic {
		return h, true
	}
	switch t := v("tourism"); t {
	case "museum", "viewpoint", "attraction", "artwork":
		return t, true
	}
	switch h := v("historic"); h {
	case "monument", "castle", "memorial", "ruins":
		return h, true
	}
	if v("ford") == "yes" {
		return CategoryFord, true
	}
	return "", false
}

// The kinds of way the store keeps: a road, or a ferry route.
const (
	KindRoad  = "road"
	KindFerry = "ferry"
)

// RoadTags are the tags a road keeps: what the surface and traffic rules
// read (pipeline.md §8).
var RoadTags = []string{"highway", "surface", "tracktype", "smoothness", "cycleway", "cycleway:left",
	"cycleway:right", "cycleway:both", "bicycle", "maxspeed", "ford", "name"}

// roadKind tells whether a way is a road or a ferry route the store keeps,
// with the tags it keeps; ok false for any other way.
func roadKind(get func(key string) string) (kind string, tags Tags, ok bool) {
	switch {
	case text.Clean(get("route"), text.MaxValue) == "ferry":
		kind = KindFerry
	default:
		switch h := text.Clean(get("highway"), text.MaxValue); h {
		case "", "proposed", "construction", "abandoned", "platform", "elevator", "bus_stop", "corridor", "raceway", "services", "rest_area":
			return "", nil, false
		}
		kind = KindRoad
	}
	tags = Tags{}
	for _, k := range RoadTags {
		if val := text.Clean(get(k), text.MaxValue); val != "" {
			tags[k] = val
		}
	}
	if kind == KindFerry {
		if name := text.Clean(get("name"), text.MaxName); name != "" {
			tags["name"] = name
		}
	}
	return kind, tags, true
}
