package trips

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"math"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/words"
)

// AlertRecord is an alert as stored: what it says as a key and its
// arguments, rendered in the trip's language when read (rows stored before
// that keep their English message).
type AlertRecord struct {
	Code     string        `json:"code"`
	Severity string        `json:"type"`
	Text     *words.Text   `json:"text,omitempty"`
	Message  string        `json:"message,omitempty"`
	Lat      *float64      `json:"lat,omitempty"`
	Lon      *float64      `json:"lon,omitempty"`
	Action   *ActionRecord `json:"action"`
	Place    *PlaceRecord  `json:"place,omitempty"`
}

// ActionRecord is an alert's published action as stored.
type ActionRecord struct {
	Kind    string         `json:"kind"`
	Text    *words.Text    `json:"text,omitempty"`
	Label   string         `json:"label,omitempty"`
	Payload map[string]any `json:"payload,omitempty"`
}

// PlaceRecord is the place a suggestion is about, as stored.
type PlaceRecord struct {
	Name     string  `json:"name"`
	Category string  `json:"category"`
	Lat      float64 `json:"lat"`
	Lon      float64 `json:"lon"`
	Off      float64 `json:"off"`
	Hours    string  `json:"hours,omitempty"`
	Website  string  `json:"website,omitempty"`
	Wikidata string  `json:"wikidata,omitempty"`
	OSMType  string  `json:"osmType,omitempty"`
	OSMID    int64   `json:"osmId,omitempty"`
}

// recordOf stores an alert of the rules.
func recordOf(a alerts.Alert) AlertRecord {
	a = a.Public()
	t := a.Text
	r := AlertRecord{Code: string(a.Code), Severity: string(a.Severity), Text: &t}
	if a.Lat != nil {
		lat, lon := round5(*a.Lat), round5(*a.Lon)
		r.Lat, r.Lon = &lat, &lon
	}
	if a.Action != nil {
		at := a.Action.Text
		r.Action = &ActionRecord{Kind: string(a.Action.Kind), Text: &at, Payload: roundPayload(a.Action.Payload)}
	}
	if p := a.Place; p != nil {
		r.Place = &PlaceRecord{Name: p.Name, Category: p.Category, Lat: round5(p.Point.Lat), Lon: round5(p.Point.Lon),
			Off: math.Round(p.Off), Hours: p.Tags["opening_hours"], Website: p.Tags["website"], Wikidata: p.Tags["wikidata"],
			OSMType: p.OSMType, OSMID: p.OSMID}
	}
	return r
}

// roundPayload keeps coordinates to 5 decimals (about a metre): a
// navigate action's payload says where, not how precisely.
func roundPayload(p map[string]any) map[string]any {
	if p == nil {
		return nil
	}
	out := make(map[string]any, len(p))
	for k, v := range p {
		switch x := v.(type) {
		case float64:
			out[k] = round5(x)
		case [][][2]float64:
			lines := make([][][2]float64, len(x))
			for i, l := range x {
				lines[i] = make([][2]float64, len(l))
				for j, q := range l {
					lines[i][j] = [2]float64{round5(q[0]), round5(q[1])}
				}
			}
			out[k] = lines
		default:
			out[k] = v
		}
	}
	return out
}

// render is the alert as clients read it, in lang.
func (r AlertRecord) render(lang string) Alert {
	a := Alert{Code: r.Code, Severity: r.Severity, Message: r.Message, Lat: r.Lat, Lon: r.Lon}
	if r.Text != nil {
		a.Message = r.Text.In(lang)
	}
	if r.Action != nil {
		a.Action = &AlertAction{Kind: r.Action.Kind, Label: r.Action.Label, Payload: r.Action.Payload}
		if r.Action.Text != nil {
			a.Action.Label = r.Action.Text.In(lang)
		}
	}
	if p := r.Place; p != nil {
		name, kind, lat, lon, off := p.Name, p.Category, p.Lat, p.Lon, p.Off
		a.PoiName, a.PoiType, a.PoiLat, a.PoiLon, a.DistanceFromRoute = &name, &kind, &lat, &lon, &off
		a.OpeningHours, a.Website, a.WikidataID = optional(p.Hours), optional(p.Website), optional(p.Wikidata)
	}
	return a
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// AlertGroups are a day's (or the trip's) alerts by the computation that
// raised them: an absent group was never computed, an empty one found
// nothing. Stored as JSON; a stored list (rows from before groups) reads
// as the terrain group.
type AlertGroups map[string][]AlertRecord

// Value implements driver.Valuer.
func (g AlertGroups) Value() (driver.Value, error) {
	return jsonValue(map[string][]AlertRecord(g), g == nil)
}

// Scan implements sql.Scanner. A column written before alerts were grouped
// holds a list: the terrain's.
func (g *AlertGroups) Scan(src any) error {
	var b json.RawMessage
	if err := scanJSON(src, &b); err != nil || b == nil {
		*g = nil
		return err
	}
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		var list []AlertRecord
		if err := json.Unmarshal(b, &list); err != nil {
			return err
		}
		*g = AlertGroups{ComputeTerrain: list}
		return nil
	}
	m := map[string][]AlertRecord{}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*g = m
	return nil
}

// groupOrder is the order groups are read in: the pipeline's.
func (g AlertGroups) all() []AlertRecord {
	var out []AlertRecord
	for _, name := range Computations {
		out = append(out, g[name]...)
	}
	return out
}

// jsonValue stores v as JSON text, NULL for nil.
func jsonValue(v any, isNil bool) (driver.Value, error) {
	if isNil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// Coverage names, per computation, why it could not look everywhere
// (words' coverage.* keys without the prefix: out_of_zone, no_map_data,
// not_configured, no_date, beyond_forecast, provider_failed).
type Coverage map[string]string

// Value implements driver.Valuer.
func (c Coverage) Value() (driver.Value, error) { return jsonValue(map[string]string(c), c == nil) }

// Scan implements sql.Scanner.
func (c *Coverage) Scan(src any) error { return scanJSON(src, (*map[string]string)(c)) }
