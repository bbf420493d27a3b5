// Package export writes a stage or a whole trip as a file a GPS or a
// planning app can load: GPX 1.1 (original ADR-021) and a FIT course
// (original ADR-018), as exports-and-sharing.md describes.
//
// Both writers take the same Track. Choosing what goes in it (a stage's
// geometry or every stage's in order, the track name, which suggestions and
// accommodations become waypoints) is the caller's business; this package
// only encodes, and it treats names as untrusted text.
package export

import (
	"errors"
	"math"
	"mime"
	"strings"

	"cairn.dev/cairn/modules/route/geo"
)

// Content types of the two formats, for the Content-Type of a download.
const (
	ContentTypeGPX = "application/gpx+xml"
	ContentTypeFIT = "application/vnd.ant.fit"
)

// The formats' extensions are registered with the standard library's table,
// so what names a file by its extension (the API reference of a download
// at /trips/{id}.gpx) finds its type without knowing the formats.
func init() {
	_ = mime.AddExtensionType(".gpx", ContentTypeGPX)
	_ = mime.AddExtensionType(".fit", ContentTypeFIT)
}

// Track is what an export file holds.
type Track struct {
	// Name names the track (GPX metadata and trk, FIT course): the stage
	// label or "Stage {dayNumber}", the trip title or its id.
	Name string
	// Link is the trip's source URL, written as the GPX metadata link of a
	// whole-trip export; empty writes none. FIT has no place for it.
	Link string
	// Points is the line, in riding order. At least one is required.
	Points []geo.Point
	// Waypoints are written before the track in GPX and as course points
	// in FIT, in the given order.
	Waypoints []Waypoint
}

// Waypoint is a place along the track: a resupply suggestion or an
// accommodation candidate.
type Waypoint struct {
	Name     string
	Lat, Lon float64
	// Category is the POI category (bakery, drinking_water, …) or the
	// accommodation type (camp_site, hotel, …); it picks the GPX symbol and
	// the FIT course point type, and is the GPX type as given.
	Category string
}

// Refusals of a Track, returned before anything is written. Test with
// errors.Is.
var (
	// ErrNoPoints refuses a Track without points: neither format has a
	// meaningful empty course, and a trip without stages answers 404
	// before it gets here.
	ErrNoPoints = errors.New("export: the track has no points")
	// ErrInvalidCoordinate refuses a point or waypoint whose latitude is
	// outside ±90, longitude outside ±180, or elevation outside the physical
	// range (geo.MinElevation to geo.MaxElevation): what the parser refuses.
	ErrInvalidCoordinate = errors.New("export: a point is not a valid coordinate")
)

// check applies the refusals both writers share.
func (t Track) check() error {
	if len(t.Points) == 0 {
		return ErrNoPoints
	}
	for _, p := range t.Points {
		if !validCoordinate(p.Lat, p.Lon) || math.IsNaN(p.Ele) || p.Ele < geo.MinElevation || p.Ele > geo.MaxElevation {
			return ErrInvalidCoordinate
		}
	}
	for _, w := range t.Waypoints {
		if !validCoordinate(w.Lat, w.Lon) {
			return ErrInvalidCoordinate
		}
	}
	return nil
}

// validCoordinate is false for NaN too, as every comparison with NaN is.
func validCoordinate(lat, lon float64) bool {
	return lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180
}

// symbols is the GPX symbol of each category (exports-and-sharing.md);
// these are Garmin's symbol names, which most apps also draw.
var symbols = map[string]string{
	"restaurant": "Restaurant",
	"cafe":       "Restaurant",
	"bar":        "Restaurant",
	"fast_food":  "Restaurant",

	"supermarket": "Shopping Center",
	"convenience": "Shopping Center",
	"bakery":      "Shopping Center",
	"butcher":     "Shopping Center",
	"pastry":      "Shopping Center",
	"deli":        "Shopping Center",
	"greengrocer": "Shopping Center",
	"general":     "Shopping Center",
	"farm":        "Shopping Center",
	"marketplace": "Shopping Center",

	"pharmacy":       "Medical Facility",
	"viewpoint":      "Scenic Area",
	"attraction":     "Museum",
	"drinking_water": "Drinking Water",
	"camp_site":      "Campground",

	"hostel":      "Lodge",
	"guest_house": "Lodge",
	"alpine_hut":  "Lodge",
	"chalet":      "Lodge",
	"hotel":       "Hotel",
}

// DefaultSymbol is the GPX symbol of a category without its own.
const DefaultSymbol = "Flag, Blue"

// Symbol is the GPX sym of a waypoint category; unknown categories get
// DefaultSymbol. Case and surrounding spaces are ignored.
func Symbol(category string) string {
	if s, ok := symbols[normalize(category)]; ok {
		return s
	}
	return DefaultSymbol
}

// CoursePointType is a FIT course point type, the course_point enum of the
// FIT profile.
type CoursePointType uint8

// The course point types exports use. The values are the FIT profile's
// (generic 0, summit 1, water 3, food 4, first_aid 9). The original
// ADR-018 lists 6, 12, 2 and 7, which the profile defines as left,
// second_category, valley and right: a device would announce a bakery as a
// left turn. The mapping by name is kept, the numbers are the profile's.
const (
	CoursePointGeneric  CoursePointType = 0
	CoursePointSummit   CoursePointType = 1
	CoursePointWater    CoursePointType = 3
	CoursePointFood     CoursePointType = 4
	CoursePointFirstAid CoursePointType = 9
)

// CoursePointTypeOf is the FIT course point type of a waypoint category:
// food categories and shops are food, pharmacy first aid, viewpoint summit,
// drinking_water water, anything else (accommodations included) generic.
// Case and surrounding spaces are ignored.
func CoursePointTypeOf(category string) CoursePointType {
	c := normalize(category)
	switch c {
	case "pharmacy":
		return CoursePointFirstAid
	case "viewpoint":
		return CoursePointSummit
	case "drinking_water":
		return CoursePointWater
	}
	// The food categories and the shops are exactly those GPX draws as a
	// restaurant or a shopping centre; one table keeps them from drifting.
	switch symbols[c] {
	case "Restaurant", "Shopping Center":
		return CoursePointFood
	}
	return CoursePointGeneric
}

func normalize(category string) string {
	return strings.ToLower(strings.TrimSpace(category))
}
