package alerts

import (
	"context"
	"errors"
	"time"

	"cairn.dev/cairn/modules/route/geo"
)

// ErrUnavailable is what a provider answers when it cannot be asked at all
// (no data set loaded, service not configured, service down). It is distinct
// from an empty answer: the pipeline stores no group for a rule whose data
// was unavailable ("never computed") and an empty group for a rule that
// found nothing, and no rule turns an unavailable source into a verdict.
// Test with errors.Is.
var ErrUnavailable = errors.New("alerts: data not available")

// The rules of pipeline.md §8 beyond those of this package read outside data
// through the interfaces below, one per concern. Each is small enough that a
// local index, a remote service or a test fake can implement it.

// Roads finds the mapped ways a line rides along (§7: within 20 m), for
// surface_rough, traffic_main_road, traffic_secondary_road_fast/slow and
// ferry_crossing.
type Roads interface {
	WaysAlong(ctx context.Context, line []geo.Point) ([]Way, error)
}

// Way is a mapped way, with its tags as the map has them.
type Way struct {
	Tags     map[string]string // OpenStreetMap keys: surface, highway, maxspeed, cycleway…
	Geometry []geo.Point       // the part the line rides along
}

// PlaceCategory is a kind of place a rule looks for.
type PlaceCategory string

// Place categories the alert rules ask for.
const (
	PlaceResupply       PlaceCategory = "resupply"        // resupply_none_on_stage, resupply_closed_at_passage
	PlaceWater          PlaceCategory = "water"           // water_point_gap
	PlaceBikeShop       PlaceCategory = "bike_shop"       // bike_shop_none_nearby
	PlaceCharger        PlaceCategory = "charger"         // ebike_range_exceeded's navigate action
	PlaceRailwayStation PlaceCategory = "railway_station" // railway_station_none_nearby
	PlaceHealth         PlaceCategory = "health"          // health_service_none_nearby
	PlaceCultural       PlaceCategory = "cultural"        // cultural_poi_suggestion
	PlaceFord           PlaceCategory = "ford"            // ford_crossing_wet/_dry
)

// Places finds places of a category within radius metres of a line (§7:
// 2 km for POIs, water, bike shops and chargers).
type Places interface {
	PlacesNear(ctx context.Context, line []geo.Point, radius float64, category PlaceCategory) ([]Place, error)
}

// Place is a point of interest as a source describes it. Its name and tags
// are data for the client, never alert text.
type Place struct {
	Name  string
	Point geo.Point
	Tags  map[string]string // e.g. opening_hours, service:bicycle:repair
}

// Forecasts gives the weather of a day at a point, for wind_headwind,
// comfort_poor_conditions and ford_crossing_wet/_dry. Without a date there is
// no forecast to ask for (ADR-072).
type Forecasts interface {
	Forecast(ctx context.Context, at geo.Point, day time.Time) (Forecast, error)
}

// Forecast is one day's weather at a point.
type Forecast struct {
	TempMin, TempMax float64 // °C
	WindSpeed        float64 // km/h
	WindFrom         float64 // degrees clockwise from north, where the wind blows from
	Humidity         float64 // %
	RainChance       float64 // % chance of precipitation
}

// Countries names the country at a point (ISO 3166-1 alpha-2), for
// border_crossing and for the calendars of calendar_public_holiday.
type Countries interface {
	CountryAt(ctx context.Context, p geo.Point) (string, error)
}

// Holidays lists a country's public holidays in a year, as UTC calendar
// days, for calendar_public_holiday.
type Holidays interface {
	PublicHolidays(ctx context.Context, country string, year int) ([]time.Time, error)
}

// Unavailable is the default of every provider: each method answers
// ErrUnavailable, so until a real source is wired in, the rules that need
// one are recorded as not computed rather than as having found nothing.
type Unavailable struct{}

var (
	_ Roads     = Unavailable{}
	_ Places    = Unavailable{}
	_ Forecasts = Unavailable{}
	_ Countries = Unavailable{}
	_ Holidays  = Unavailable{}
)

// WaysAlong implements Roads.
func (Unavailable) WaysAlong(context.Context, []geo.Point) ([]Way, error) {
	return nil, ErrUnavailable
}

// PlacesNear implements Places.
func (Unavailable) PlacesNear(context.Context, []geo.Point, float64, PlaceCategory) ([]Place, error) {
	return nil, ErrUnavailable
}

// Forecast implements Forecasts.
func (Unavailable) Forecast(context.Context, geo.Point, time.Time) (Forecast, error) {
	return Forecast{}, ErrUnavailable
}

// CountryAt implements Countries.
func (Unavailable) CountryAt(context.Context, geo.Point) (string, error) {
	return "", ErrUnavailable
}

// PublicHolidays implements Holidays.
func (Unavailable) PublicHolidays(context.Context, string, int) ([]time.Time, error) {
	return nil, ErrUnavailable
}
