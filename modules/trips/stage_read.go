package trips

import (
	"context"
	"math"
	"slices"
	"time"

	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/registry"
)

// The long lists of a day's read give the nearest few and how many there
// are; StageInput.List asks for one of them whole.
const (
	ListedAccommodations = 1
	ListedEvents         = 2
	ListedFood           = 1 // at lunch and at arrival each
	ListedCultural       = 1
	ListedAlerts         = 6 // the gravest first
)

// The lists a day's read gives whole when asked.
const (
	ListAccommodations = "accommodations"
	ListFood           = "food"
	ListWater          = "water"
	ListEvents         = "events"
	ListCultural       = "cultural"
	ListAlerts         = "alerts"
)

// StageInput asks for one of a day's long lists whole.
type StageInput struct {
	List string `json:"list,omitempty" enum:"accommodations,food,water,events,cultural,alerts" doc:"One list to give whole; else the first few and a count."`
}

// StageDetail is one day in full, as get_stage answers it, in the trip's
// language.
type StageDetail struct {
	Day
	Date           string           `json:"date,omitempty" doc:"The day's date (YYYY-MM-DD), when the trip has a start date."`
	StartLabel     *string          `json:"startLabel,omitempty" text:"third-party" doc:"The town or village nearest the start; absent outside the gazetteer's coverage."`
	EndLabel       *string          `json:"endLabel,omitempty" text:"third-party" doc:"The town or village nearest the end; absent outside the gazetteer's coverage."`
	StartPoint     Coordinate       `json:"startPoint" doc:"Where the day starts."`
	EndPoint       Coordinate       `json:"endPoint" doc:"Where the day ends."`
	AlertDetails   *[]Alert         `json:"alertDetails,omitempty" doc:"The day's alerts with where they apply and what can be done (of the places to see, the nearest unless list=cultural); absent until analysed."`
	AlertCount     int              `json:"alertCount,omitempty" doc:"How many alerts the day has in all, when alertDetails gives only the gravest few (list=alerts gives every one)."`
	CulturalCount  int              `json:"culturalCount,omitempty" doc:"How many places to see are suggested in all."`
	Weather        *Weather         `json:"weather,omitempty" doc:"The day's forecast at its start; absent without one (see coverage)."`
	Resupply       *Resupply        `json:"resupply,omitempty" doc:"Where to buy food and fill bottles on the way; absent until looked for."`
	Accommodations *[]Accommodation `json:"accommodations,omitempty" doc:"Places to sleep near the day's end, the best first (third-party data): the best unless list=accommodations; absent until scanned."`
	// AccommodationCount is how many candidates the day has: the list may
	// give fewer.
	AccommodationCount int `json:"accommodationCount,omitempty" doc:"How many candidates the day has in all."`
	// AccommodationsNote says why a day lists no place to sleep, and what
	// fixes it: an empty list alone sends a caller reading the day again.
	AccommodationsNote string         `json:"accommodationsNote,omitempty" doc:"Why the day has no candidates, and what fixes it; absent when it has some."`
	Selected           *Accommodation `json:"selectedAccommodation,omitempty" doc:"The chosen place to sleep, when one is."`
	Events             *[]Event       `json:"events,omitempty" doc:"Events near the day's end on its date, nearest first: the first 2 unless list=events; absent until looked for."`
	EventCount         int            `json:"eventCount,omitempty" doc:"How many events were found in all."`
	Coverage           Coverage       `json:"coverage,omitempty" text:"own" doc:"Each computation that could not look at this day, and why (out_of_zone, no_map_data, not_configured, no_date, beyond_forecast); a computation not named looked, and an empty list means it found nothing."`
	Trip               StageTrip      `json:"trip" doc:"The trip's version, lock and what is still being computed."`
	lang               string
}

// StageTrip is the trip as a day's read carries it: what a write needs,
// and which computations have not settled (get_trip has every status).
type StageTrip struct {
	ID       string `json:"id" doc:"The trip's id."`
	Version  int64  `json:"version" doc:"Structural version; send it back to change the trip."`
	IsLocked bool   `json:"isLocked" doc:"True once the trip has started."`
	// Locale lets a view of the day speak the trip's language, as its
	// alerts do.
	Locale    string   `json:"locale,omitempty" text:"own" doc:"The trip's language (en or fr), that of the day's alerts."`
	Computing []string `json:"computing,omitempty" text:"own" doc:"The computations still pending or running: read again once they settle."`
	Failed    []string `json:"failed,omitempty" text:"own" doc:"The computations that failed."`
}

// ResourceVersion implements registry.Versioned: the trip's version.
func (s StageDetail) ResourceVersion() int64 { return s.Trip.Version }

// TextBudget implements the MCP face's text budget: a day's read, which
// an agent makes once a night it plans, stays within 3,000 bytes in all,
// its text the summary of its fields past a short rendering.
func (StageDetail) TextBudget() int { return 600 }

// ContentLanguage implements registry.Localized: the day's words are in
// the trip's language.
func (s StageDetail) ContentLanguage() string { return s.lang }

// CarriesThirdPartyText implements registry.ThirdParty: accommodation
// names and descriptions come from map data.
func (StageDetail) CarriesThirdPartyText() {}

// Coordinate is a published point.
type Coordinate struct {
	Lat float64 `json:"lat" doc:"Latitude."`
	Lon float64 `json:"lon" doc:"Longitude."`
	Ele float64 `json:"ele" doc:"Elevation in metres."`
}

func stageTrip(tr *Trip, now time.Time) StageTrip {
	out := StageTrip{ID: tr.ID, Version: tr.Version, IsLocked: Locked(tr, now), Locale: tr.Locale}
	for _, name := range Computations {
		switch tr.ComputationStatus[name] {
		case StatusPending, StatusRunning:
			out.Computing = append(out.Computing, name)
		case StatusFailed:
			out.Failed = append(out.Failed, name)
		}
	}
	return out
}

// renderAlerts is a day's (or the trip's) alerts, in lang.
func renderAlerts(g AlertGroups, lang string) []Alert {
	list := []Alert{}
	for _, r := range g.all() {
		list = append(list, r.render(lang))
	}
	return list
}

func (t *Trips) stageDetail(ctx context.Context, c *registry.Call, in *StageInput) (StageDetail, error) {
	r, err := t.loadDays(ctx, c)
	if err != nil {
		return StageDetail{}, err
	}
	d := r.(*Days)
	s := &d.Stages[d.Target]
	lang := d.Trip.Locale
	day := dayOf(s)
	day.Alerts = nil // the details follow
	out := StageDetail{
		Day:        day,
		StartLabel: s.StartLabel,
		EndLabel:   s.EndLabel,
		StartPoint: coordinate(s.StartPoint),
		EndPoint:   coordinate(s.EndPoint),
		Selected:   s.Selected,
		Weather:    s.Weather.described(lang),
		Coverage:   dayCoverage(d.Trip, s),
		Trip:       stageTrip(d.Trip, c.Now),
		lang:       lang,
	}
	if d.Trip.StartDate != nil {
		if start, err := time.Parse(dateLayout, *d.Trip.StartDate); err == nil {
			out.Date = start.AddDate(0, 0, d.Target).Format(dateLayout)
		}
	}
	if s.Alerts != nil {
		all := renderAlerts(s.Alerts, lang)
		list := make([]Alert, 0, len(all))
		for _, a := range all {
			if in.List != ListAlerts {
				a = compactAlert(a)
			}
			if a.Code == "cultural_poi_suggestion" {
				out.CulturalCount++
				if in.List != ListCultural && out.CulturalCount > ListedCultural {
					continue
				}
			}
			list = append(list, a)
		}
		if in.List != ListAlerts && len(list) > ListedAlerts {
			// The gravest first: a day of many alerts gives its critical
			// and warning ones before its nudges, and says how many.
			slices.SortStableFunc(list, func(a, b Alert) int { return severityRank(a.Severity) - severityRank(b.Severity) })
			out.AlertCount, list = len(list), list[:ListedAlerts]
		}
		out.AlertDetails = &list
	}
	if s.Resupply != nil {
		rs := *s.Resupply
		if in.List != ListFood {
			rs.Food = nil
			rs.FoodAtLunch = compactPOIs(rs.FoodAtLunch[:min(ListedFood, len(rs.FoodAtLunch))])
			rs.FoodAtArrival = compactPOIs(rs.FoodAtArrival[:min(ListedFood, len(rs.FoodAtArrival))])
		}
		if in.List != ListWater {
			rs.WaterMorning, rs.WaterAfternoon = compactPOI(rs.WaterMorning), compactPOI(rs.WaterAfternoon)
		}
		if in.List != ListWater {
			rs.Water = nil
		}
		out.Resupply = &rs
	}
	if s.Accommodations != nil {
		list := withKeys(*s.Accommodations)
		out.AccommodationCount = len(list)
		if in.List != ListAccommodations {
			list = list[:min(ListedAccommodations, len(list))]
			for i := range list { // the id names the map element already
				list[i].OsmType, list[i].OsmID = nil, nil
				if list[i].Source == poi.SourceOSM {
					list[i].Source = ""
				}
				list[i].Lat, list[i].Lon = round5(list[i].Lat), round5(list[i].Lon)
			}
		}
		out.Accommodations = &list
	}
	if s.Events != nil {
		list := slices.Clone([]Event(s.Events))
		out.EventCount = len(list)
		if in.List != ListEvents {
			list = list[:min(ListedEvents, len(list))]
		}
		out.Events = &list
	}
	if s.Selected != nil {
		sel := *s.Selected
		sel.ID = sel.Key()
		out.Selected = &sel
	}
	if s.Accommodations == nil || len(*s.Accommodations) == 0 {
		why, err := t.noCandidates(ctx, c, s)
		if err != nil {
			return StageDetail{}, err
		}
		out.AccommodationsNote = why
	}
	return out, nil
}

// compactAlert is an alert as a day's read gives it by default: where it
// applies said once (by its action when it navigates there), and the
// stretches it concerns left to list=alerts, which a map draws.
func compactAlert(a Alert) Alert {
	if a.Action != nil && a.Action.Payload == nil {
		act := *a.Action
		act.Label = "" // a dismiss: the kind says what it does
		a.Action = &act
	}
	if a.Action == nil || a.Action.Payload == nil {
		return a
	}
	act := *a.Action
	payload := map[string]any{}
	for k, v := range act.Payload {
		switch x := v.(type) {
		case float64: // to 4 decimals (about 10 m): where to go, not a survey
			payload[k] = math.Round(x*1e4) / 1e4
		default:
			if k != "segments" {
				payload[k] = v
			}
		}
	}
	act.Payload = payload
	act.Label = "" // the kind says what it does; list=alerts gives the words
	a.Action = &act
	if a.Code == "cultural_poi_suggestion" {
		a.PoiName, a.PoiType, a.DistanceFromRoute = nil, nil, nil // the message names them; list=cultural gives them
	}
	if a.Lat != nil && math.Abs(act.Payload["lat"].(float64)-*a.Lat) < 1e-4 && math.Abs(act.Payload["lon"].(float64)-*a.Lon) < 1e-4 {
		a.Lat, a.Lon = nil, nil
	}
	if a.PoiLat != nil && a.Lat == nil {
		a.PoiLat, a.PoiLon = nil, nil // the action goes there
	}
	return a
}

// compactPOIs are stops as a day's read gives them by default: their
// name, kilometre and hours (list=food or water gives where).
func compactPOIs(ps []PointOfInterest) []PointOfInterest {
	out := make([]PointOfInterest, len(ps))
	for i := range ps {
		out[i] = *compactPOI(&ps[i])
	}
	return out
}

func compactPOI(p *PointOfInterest) *PointOfInterest {
	if p == nil {
		return nil
	}
	c := PointOfInterest{Name: p.Name, Category: p.Category, DistanceFromStart: p.DistanceFromStart, OpeningHours: p.OpeningHours}
	if c.Category == poi.CategoryDrinkingWater {
		c.Category = "" // a water stop is one
	}
	return &c
}

// coordinate is a stored point as published: 5 decimals (about a metre),
// elevation to the decimetre.
func coordinate(p Point) Coordinate {
	return Coordinate{Lat: round5(p.Lat), Lon: round5(p.Lon), Ele: round1(p.Ele)}
}

// dayCoverage is what could not be looked at on a day: its own gaps (out
// of the local data), then the trip's (no date, no provider).
func dayCoverage(tr *Trip, s *Stage) Coverage {
	out := Coverage{}
	for k, v := range tr.Coverage {
		if v != CoverageOutOfZone {
			out[k] = v
		}
	}
	for k, v := range s.Coverage {
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// severityRank orders severities gravest first.
func severityRank(s string) int {
	switch s {
	case "critical":
		return 0
	case "warning":
		return 1
	}
	return 2
}
