package trips

import (
	"database/sql/driver"

	"cairn.dev/cairn/modules/route/words"
)

// Weather is a day's forecast at its start (model.md: WeatherForecast).
type Weather struct {
	Icon                     string  `json:"icon" text:"own" doc:"clear, partly_cloudy, cloudy, fog, drizzle, rain, snow, showers or thunderstorm."`
	Description              string  `json:"description,omitempty" text:"own" doc:"The sky in words, in the trip's language."`
	TempMin                  float64 `json:"tempMin" doc:"Lowest temperature, °C."`
	TempMax                  float64 `json:"tempMax" doc:"Highest temperature, °C."`
	WindSpeed                float64 `json:"windSpeed" doc:"Strongest wind, km/h."`
	WindDirection            string  `json:"windDirection" text:"own" doc:"Where the wind blows from (N, NE, E …)."`
	PrecipitationProbability float64 `json:"precipitationProbability" doc:"Chance of rain, %."`
	Humidity                 float64 `json:"humidity" doc:"Mean relative humidity, %."`
	ComfortIndex             int     `json:"comfortIndex" doc:"0 (awful) to 100 (ideal) for riding."`
	RelativeWindDirection    string  `json:"relativeWindDirection" text:"own" doc:"headwind, tailwind or crosswind against the day's heading."`
}

// Value implements driver.Valuer.
func (w *Weather) Value() (driver.Value, error) { return jsonValue(w, w == nil) }

// Scan implements sql.Scanner.
func (w *Weather) Scan(src any) error { return scanJSON(src, w) }

// described fills the description in lang.
func (w *Weather) described(lang string) *Weather {
	if w == nil {
		return nil
	}
	c := *w
	c.Description = words.Render(lang, "weather."+w.Icon, nil)
	return &c
}

// PointOfInterest is a place along a day (model.md). Its name and hours
// come from map data.
type PointOfInterest struct {
	Name              string  `json:"name,omitempty" text:"third-party" doc:"Name, as the map gives it (third-party text); absent when it has none."`
	Category          string  `json:"category,omitempty" text:"own" doc:"What it is (bakery, supermarket, drinking_water …); a water stop of the day's read does not say."`
	Lat               float64 `json:"lat,omitempty" doc:"Latitude (given with list=food or water)."`
	Lon               float64 `json:"lon,omitempty" doc:"Longitude (given with list=food or water)."`
	DistanceFromStart float64 `json:"km" doc:"Kilometres along the day from its start."`
	OpeningHours      *string `json:"openingHours,omitempty" text:"third-party" doc:"Opening hours, when known."`
}

// Resupply are a day's curated stops (model.md): food at lunch and at
// arrival, water in the morning and the afternoon.
type Resupply struct {
	FoodAtLunch    []PointOfInterest `json:"foodAtLunch" doc:"Places to buy food nearest where the rider is at 12:30: the nearest unless list=food, two at most."`
	WaterMorning   *PointOfInterest  `json:"waterMorning,omitempty" doc:"A water point before lunch."`
	WaterAfternoon *PointOfInterest  `json:"waterAfternoon,omitempty" doc:"A water point after lunch."`
	FoodAtArrival  []PointOfInterest `json:"foodAtArrival" doc:"Places to buy food nearest the day's end: the nearest unless list=food, two at most."`
	FoodCount      int               `json:"foodCount" doc:"How many places to buy food lie along the day."`
	WaterCount     int               `json:"waterCount" doc:"How many water points lie along the day."`
	// Food and Water are every place found, in order along the day: kept,
	// and answered only when the read asks for that list.
	Food  []PointOfInterest `json:"food,omitempty" doc:"Every place to buy food along the day, in order (only when asked for with list=food)."`
	Water []PointOfInterest `json:"water,omitempty" doc:"Every water point along the day, in order (only when asked for with list=water)."`
}

// Value implements driver.Valuer.
func (r *Resupply) Value() (driver.Value, error) { return jsonValue(r, r == nil) }

// Scan implements sql.Scanner.
func (r *Resupply) Scan(src any) error { return scanJSON(src, r) }

// Event is something on near a day's end on its date (model.md).
type Event struct {
	Name               string  `json:"name" text:"third-party" doc:"Name, as the feed gives it (third-party text)."`
	Type               string  `json:"type" text:"third-party" doc:"The feed's category, or event."`
	Lat                float64 `json:"lat" doc:"Latitude."`
	Lon                float64 `json:"lon" doc:"Longitude."`
	StartDate          string  `json:"startDate" doc:"When it starts (RFC 3339)."`
	EndDate            string  `json:"endDate" doc:"When it ends (RFC 3339)."`
	URL                *string `json:"url,omitempty" text:"third-party" doc:"Its page."`
	DistanceToEndPoint float64 `json:"distanceToEndPoint" doc:"Kilometres from the day's end."`
	Source             string  `json:"source" text:"own" doc:"Where it comes from: ical."`
}

// EventList is a day's events, stored as JSON; nil: never looked for.
type EventList []Event

// Value implements driver.Valuer.
func (l EventList) Value() (driver.Value, error) { return jsonValue([]Event(l), l == nil) }

// Scan implements sql.Scanner.
func (l *EventList) Scan(src any) error { return scanJSON(src, (*[]Event)(l)) }
