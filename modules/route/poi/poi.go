// Package poi keeps points of interest and answers the accommodation
// candidates of a stage end (pipeline.md §7).
//
// The local store (table pois) is filled by Import from OpenStreetMap XML or
// PBF extracts and is the default Provider; Overpass asks a live Overpass API
// instead and is optional. Both rank their candidates with the same rules, so
// they differ only in where the elements come from.
package poi

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// The accommodation types (model.md), in the vocabulary of OpenStreetMap's
// tourism=* values.
const (
	TypeCampSite      = "camp_site"
	TypeHostel        = "hostel"
	TypeAlpineHut     = "alpine_hut"
	TypeChalet        = "chalet"
	TypeGuestHouse    = "guest_house"
	TypeHotel         = "hotel"
	TypeWildernessHut = "wilderness_hut"
)

// AccommodationTypes is every accommodation type, the default when a caller
// enables none.
var AccommodationTypes = []string{TypeCampSite, TypeHostel, TypeAlpineHut, TypeChalet,
	TypeGuestHouse, TypeHotel, TypeWildernessHut}

// IsAccommodationType reports whether t is one of AccommodationTypes.
func IsAccommodationType(t string) bool { return slices.Contains(AccommodationTypes, t) }

// The sources a POI can come from.
const (
	SourceOSM    = "osm"
	SourceManual = "manual"
)

// The OpenStreetMap element types the importer keeps.
const (
	OSMNode = "node"
	OSMWay  = "way"
)

// POI is one stored point of interest.
type POI struct {
	ID         string  // "osm:node:123": the source and its element
	Source     string  // SourceOSM, SourceManual
	OSMType    string  // OSMNode, OSMWay; empty outside OpenStreetMap
	OSMID      int64   // 0 outside OpenStreetMap
	Name       string  // empty when the element has no name
	Category   string  // an accommodation type for accommodations, else a Category
	Lat, Lon   float64 // a way's centroid for ways
	Tags       Tags    // the kept tags, see KeptTags
	ImportedAt time.Time
	ImportID   string // the import that stored it; empty for a place entered by hand
}

// OSMKey returns the store id of an OpenStreetMap element.
func OSMKey(osmType string, id int64) string {
	return SourceOSM + ":" + osmType + ":" + strconv.FormatInt(id, 10)
}

// The keys of Tags. Values are those of OpenStreetMap, except Address,
// which the importer composes from the addr:* keys.
const (
	TagWebsite      = "website"
	TagDescription  = "description"
	TagOpeningHours = "opening_hours"
	TagPhone        = "phone"
	TagAddress      = "address"
	TagStars        = "stars"
	TagCapacity     = "capacity"
	TagFee          = "fee"
	TagCharge       = "charge"
	TagBackpack     = "backpack"
	TagTents        = "tents"
	TagSeasonal     = "seasonal"
	TagWikidata     = "wikidata"
	TagWikipedia    = "wikipedia"
	// TagRepair says whether a bicycle shop repairs (service:bicycle:repair).
	TagRepair = "service:bicycle:repair"
	// TagDrinkingWater says whether a water point's water is drinkable.
	TagDrinkingWater = "drinking_water"
	// TagBicycle says whether a charger serves bicycles.
	TagBicycle = "bicycle"
)

// KeptTags are the tags a POI keeps; anything else in the source is dropped
// on import, which keeps the table small.
var KeptTags = []string{TagWebsite, TagDescription, TagOpeningHours, TagPhone, TagAddress,
	TagStars, TagCapacity, TagFee, TagCharge, TagBackpack, TagTents, TagSeasonal, TagWikidata, TagWikipedia,
	TagRepair, TagDrinkingWater, TagBicycle}

// Tags are a POI's kept tags, stored as a JSON object in a TEXT column so the
// same schema serves PostgreSQL and SQLite.
type Tags map[string]string

// Value implements driver.Valuer.
func (t Tags) Value() (driver.Value, error) {
	if t == nil {
		return "{}", nil
	}
	b, err := json.Marshal(map[string]string(t))
	return string(b), err
}

// Scan implements sql.Scanner.
func (t *Tags) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		*t = Tags{}
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("poi: cannot scan %T as tags", src)
	}
	if m, ok := plainTags(b); ok {
		*t = m
		return nil
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("poi: tags: %w", err)
	}
	*t = m
	return nil
}

// plainTags reads a JSON object of strings holding no escape, as Value
// writes nearly every tag set, without the reflection of encoding/json: a
// corridor read decodes the tags of thousands of places. ok is false for
// anything else (an escape, a number, spaces), which json.Unmarshal reads.
func plainTags(b []byte) (Tags, bool) {
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' || bytes.IndexByte(b, '\\') >= 0 {
		return nil, false
	}
	m := Tags{}
	rest := b[1 : len(b)-1]
	str := func() (string, bool) {
		if len(rest) == 0 || rest[0] != '"' {
			return "", false
		}
		end := bytes.IndexByte(rest[1:], '"')
		if end < 0 {
			return "", false
		}
		v := string(rest[1 : 1+end])
		rest = rest[end+2:]
		return v, true
	}
	for len(rest) > 0 {
		k, ok := str()
		if !ok || len(rest) == 0 || rest[0] != ':' {
			return nil, false
		}
		rest = rest[1:]
		v, ok := str()
		if !ok {
			return nil, false
		}
		m[k] = v
		if len(rest) > 0 {
			if rest[0] != ',' || len(rest) == 1 {
				return nil, false
			}
			rest = rest[1:]
		}
	}
	return m, true
}
