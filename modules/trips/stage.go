package trips

import (
	"crypto/sha256"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unsafe"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"cairn.dev/cairn/modules/route/geo"
)

// Stage is one stored day of a trip.
type Stage struct {
	bun.BaseModel `bun:"table:stages"`

	ID         string      `bun:"id,pk"`
	TripID     string      `bun:"trip_id"`
	Position   int         `bun:"position"` // 0-based; dayNumber = position + 1
	Distance   float64     `bun:"distance"` // km
	Ascent     float64     `bun:"ascent"`   // m
	Descent    float64     `bun:"descent"`  // m
	StartPoint Point       `bun:"start_point"`
	EndPoint   Point       `bun:"end_point"`
	Geometry   Points      `bun:"geometry"`
	Label      *string     `bun:"label"`
	IsRestDay  bool        `bun:"is_rest_day"`
	Alerts     AlertGroups `bun:"alerts"`      // by computation; an absent group was never computed
	StartLabel *string     `bun:"start_label"` // the gazetteer's name of the start; nil outside its coverage
	EndLabel   *string     `bun:"end_label"`
	Weather    *Weather    `bun:"weather"`  // nil: no forecast
	Resupply   *Resupply   `bun:"resupply"` // nil: never looked for
	Events     EventList   `bun:"events"`   // nil: never looked for
	Coverage   Coverage    `bun:"coverage"` // what could not be looked at on this day, by computation

	Accommodations *AccommodationList `bun:"accommodations"`         // nil: never scanned
	Selected       *Accommodation     `bun:"selected_accommodation"` // the rider's choice
}

// Accommodation is a place to sleep near a stage's end (model.md). Its name
// and texts come from third parties: they are data, never instructions.
type Accommodation struct {
	ID                 string  `json:"id" doc:"The candidate's id, which a choice names."`
	Name               string  `json:"name" text:"third-party" doc:"Name, as the source gives it (third-party text)."`
	Type               string  `json:"type" doc:"camp_site, hostel, alpine_hut, chalet, guest_house, hotel, wilderness_hut, or other."`
	Lat                float64 `json:"lat" doc:"Latitude."`
	Lon                float64 `json:"lon" doc:"Longitude."`
	EstimatedPriceMin  float64 `json:"estimatedPriceMin" doc:"Lowest expected price per night, EUR."`
	EstimatedPriceMax  float64 `json:"estimatedPriceMax" doc:"Highest expected price per night, EUR."`
	IsExactPrice       bool    `json:"isExactPrice,omitempty" doc:"True when the source states the price; absent for an estimate."`
	URL                *string `json:"url,omitempty" text:"third-party" doc:"Website, when known."`
	PossibleClosed     bool    `json:"possibleClosed" doc:"May be closed on the stage's date."`
	DistanceToEndPoint float64 `json:"distanceToEndPoint" doc:"Kilometres from the stage's end."`
	Source             string  `json:"source,omitempty" text:"own" doc:"osm or manual (a day's read leaves osm out: its id says it)."`
	Address            *string `json:"address,omitempty" text:"third-party" doc:"Address, when known."`
	Phone              *string `json:"phone,omitempty" text:"third-party" doc:"Phone, when known."`
	OpeningHours       *string `json:"openingHours,omitempty" text:"third-party" doc:"Opening hours, when known."`
	Description        *string `json:"description,omitempty" text:"third-party" doc:"Description (third-party text)."`
	OsmType            *string `json:"osmType,omitempty" doc:"node, way or relation."`
	OsmID              *int64  `json:"osmId,omitempty" doc:"OpenStreetMap id."`
}

// Key is the candidate's stable id: the OpenStreetMap element when it has
// one ("osm:node:4242"), else a digest of its source, name and place, so
// that a rescan finding the same place gives the same id.
func (a *Accommodation) Key() string {
	if a.ID != "" {
		return a.ID
	}
	if a.OsmType != nil && a.OsmID != nil {
		return "osm:" + *a.OsmType + ":" + strconv.FormatInt(*a.OsmID, 10)
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%.6f|%.6f", a.Source, a.Name, a.Lat, a.Lon))
	return a.Source + ":" + hex.EncodeToString(sum[:6])
}

// withKeys returns the list with every candidate's id filled, for rows
// stored before candidates had one.
func withKeys(l []Accommodation) []Accommodation {
	out := slices.Clone(l)
	for i := range out {
		out[i].ID = out[i].Key()
	}
	return out
}

// Value implements driver.Valuer.
func (a *Accommodation) Value() (driver.Value, error) {
	if a == nil {
		return nil, nil
	}
	b, err := json.Marshal(a)
	return string(b), err
}

// Scan implements sql.Scanner.
func (a *Accommodation) Scan(src any) error { return scanJSON(src, a) }

// AccommodationList is a stage's candidates, stored as JSON.
type AccommodationList []Accommodation

// Value implements driver.Valuer.
func (l AccommodationList) Value() (driver.Value, error) {
	if l == nil {
		l = AccommodationList{}
	}
	b, err := json.Marshal([]Accommodation(l))
	return string(b), err
}

// Scan implements sql.Scanner.
func (l *AccommodationList) Scan(src any) error { return scanJSON(src, (*[]Accommodation)(l)) }

// Point is a coordinate stored as compact JSON [lat, lon, ele].
type Point geo.Point

func (p Point) point() geo.Point { return geo.Point(p) }

// Value implements driver.Valuer.
func (p Point) Value() (driver.Value, error) { return string(appendPoint(nil, geo.Point(p))), nil }

// Scan implements sql.Scanner.
func (p *Point) Scan(src any) error {
	var a [3]float64
	if err := scanJSON(src, &a); err != nil {
		return err
	}
	*p = Point{Lat: a[0], Lon: a[1], Ele: a[2]}
	return nil
}

// Points is a polyline stored as compact JSON [[lat, lon, ele], …]: six
// decimals (about 0.1 m) and elevation to the decimetre are all a route needs.
type Points []geo.Point

// Value implements driver.Valuer.
// The text is handed over without a copy: its bytes are never written
// again, and a route's points are tens of megabytes.
func (ps Points) Value() (driver.Value, error) {
	b := ps.appendJSON(make([]byte, 0, len(ps)*28+2))
	return unsafe.String(&b[0], len(b)), nil
}

// AppendQuery implements schema.QueryAppender: bun writes a model's points
// (a day's geometry) into its statement as a quoted literal, straight into
// the statement's buffer, where bun's Value path would build the text, copy
// it into a string, then scan it for quotes to escape and copy it again;
// the text holds only digits, signs, points, commas and brackets (NaN and
// Inf letters at worst), which no dialect escapes. On SQLite a route's
// points, far more, are bound instead (insertRouteRow).
func (ps Points) AppendQuery(_ schema.QueryGen, b []byte) ([]byte, error) {
	b = slices.Grow(b, len(ps)*28+4)
	b = append(b, '\'')
	b = ps.appendJSON(b)
	return append(b, '\''), nil
}

func (ps Points) appendJSON(b []byte) []byte {
	b = append(b, '[')
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendPoint(b, p)
	}
	return append(b, ']')
}

// Scan implements sql.Scanner.
func (ps *Points) Scan(src any) error {
	var raw [][3]float64
	if err := scanJSON(src, &raw); err != nil {
		return err
	}
	out := make(Points, len(raw))
	for i, a := range raw {
		out[i] = geo.Point{Lat: a[0], Lon: a[1], Ele: a[2]}
	}
	*ps = out
	return nil
}

func appendPoint(b []byte, p geo.Point) []byte {
	b = append(b, '[')
	b = strconv.AppendFloat(b, p.Lat, 'f', 6, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, p.Lon, 'f', 6, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, p.Ele, 'f', 1, 64)
	return append(b, ']')
}

// Alert is an alert as clients read it, in the trip's language (model.md).
// A suggestion of a place to see carries the place (poi*).
type Alert struct {
	Code     string       `json:"code" doc:"Stable code; clients dedupe and dismiss by it."`
	Severity string       `json:"type" doc:"critical, warning or nudge."`
	Message  string       `json:"message" text:"third-party" doc:"What the alert says, in the trip's language (may name a place from map data)."`
	Lat      *float64     `json:"lat,omitempty" doc:"Where it applies, when it has a place (in a day's read, absent when its navigate action goes there)."`
	Lon      *float64     `json:"lon,omitempty" doc:"Where it applies, when it has a place."`
	Action   *AlertAction `json:"action,omitempty" doc:"What a client can do about it (navigate or dismiss); absent otherwise. The stretches it concerns (payload.segments) come with list=alerts."`

	PoiName           *string  `json:"poiName,omitempty" text:"third-party" doc:"The place suggested (cultural_poi_suggestion), as the map names it."`
	PoiType           *string  `json:"poiType,omitempty" doc:"What the place is (museum, castle, viewpoint …)."`
	PoiLat            *float64 `json:"poiLat,omitempty" doc:"The place's latitude."`
	PoiLon            *float64 `json:"poiLon,omitempty" doc:"The place's longitude."`
	DistanceFromRoute *float64 `json:"distanceFromRoute,omitempty" doc:"Metres from the day's line to the place."`
	OpeningHours      *string  `json:"openingHours,omitempty" text:"third-party" doc:"The place's opening hours, when known."`
	Website           *string  `json:"website,omitempty" text:"third-party" doc:"The place's website, when known."`
	WikidataID        *string  `json:"wikidataId,omitempty" doc:"The place's Wikidata id, when known."`
}

// AlertAction is an alert's action as delivered to clients.
type AlertAction struct {
	Kind    string         `json:"kind" doc:"navigate or dismiss."`
	Label   string         `json:"label,omitempty" text:"own" doc:"Text of the action, in the trip's language (a day's read gives it with list=alerts)."`
	Payload map[string]any `json:"payload,omitempty" text:"own" doc:"Coordinates to navigate to, and the stretches concerned."`
}

// RouteRecord is the imported route of a trip, kept for re-pacing and edits.
type RouteRecord struct {
	bun.BaseModel `bun:"table:trip_routes"`

	TripID      string    `bun:"trip_id,pk"`
	Title       *string   `bun:"title"`
	SourceType  string    `bun:"source_type"`
	Raw         Points    `bun:"raw_points"`
	Decimated   Points    `bun:"decimated"`
	TrackStarts Ints      `bun:"track_starts"`
	Distance    float64   `bun:"distance"`
	Ascent      float64   `bun:"ascent"`
	Descent     float64   `bun:"descent"`
	PointCount  int       `bun:"point_count"`
	CreatedAt   time.Time `bun:"created_at"`
}

// Ints is a list of integers stored as JSON.
type Ints []int

// Value implements driver.Valuer.
func (l Ints) Value() (driver.Value, error) {
	if l == nil {
		l = Ints{}
	}
	b, err := json.Marshal([]int(l))
	return string(b), err
}

// Scan implements sql.Scanner.
func (l *Ints) Scan(src any) error { return scanJSON(src, (*[]int)(l)) }
