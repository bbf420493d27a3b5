// Package weather reads one day's forecast at a point from a service
// answering in Open-Meteo's format (its /v1/forecast: daily variables),
// at the address the operator configures (weather_url). Answers are kept
// 3 hours per point (to 0.01°) and day, and calls are spaced to stay
// within the free-use rate (600 a minute), one process sharing one pace.
package weather

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"time"

	"golang.org/x/time/rate"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/ttlcache"
	"cairn.dev/cairn/modules/route/upstream"
)

// CacheTTL is how long a forecast is reused.
const CacheTTL = 3 * time.Hour

// Forecast is one day's weather at a point.
type Forecast struct {
	Code       int     // WMO weather code
	TempMin    float64 // °C
	TempMax    float64 // °C
	WindSpeed  float64 // km/h, the day's strongest 10 m wind
	WindFrom   float64 // degrees clockwise from north, where the wind blows from
	Humidity   float64 // %, the day's mean
	RainChance float64 // %, the day's highest chance of precipitation
}

// ErrNoForecast is the answer for a day the service has no forecast for
// (beyond its horizon, or past): no claim is made about that day.
var ErrNoForecast = errors.New("weather: no forecast for that day")

// Client asks one forecast service.
type Client struct {
	base  *url.URL
	http  *upstream.Client
	cache *ttlcache.Cache[Forecast]
	pace  *rate.Limiter
}

// Options shape a Client; the zero value is the default policy.
type Options struct {
	HTTP upstream.Options
	// Every spaces calls; default 100 ms (600 a minute).
	Every time.Duration
}

// New returns a client of the service at base (…/v1/forecast).
func New(base string, o Options) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("weather: weather_url must be an absolute http(s) URL")
	}
	every := o.Every
	if every <= 0 {
		every = 100 * time.Millisecond
	}
	return &Client{base: u, http: upstream.New(o.HTTP), cache: ttlcache.New[Forecast](10_000, nil, nil),
		pace: rate.NewLimiter(rate.Every(every), 1)}, nil
}

// answer is the part of an Open-Meteo answer read.
type answer struct {
	Daily struct {
		Time     []string   `json:"time"`
		Code     []*float64 `json:"weather_code"`
		TempMax  []*float64 `json:"temperature_2m_max"`
		TempMin  []*float64 `json:"temperature_2m_min"`
		Rain     []*float64 `json:"precipitation_probability_max"`
		Wind     []*float64 `json:"wind_speed_10m_max"`
		WindFrom []*float64 `json:"wind_direction_10m_dominant"`
		Humidity []*float64 `json:"relative_humidity_2m_mean"`
	} `json:"daily"`
}

// Daily are the variables asked for.
const Daily = "weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max,wind_speed_10m_max,wind_direction_10m_dominant,relative_humidity_2m_mean"

// Forecast is the weather on day (a UTC calendar day) at p. The service
// answering 400 for the day (out of its range) is ErrNoForecast; failing
// through its retries, an *upstream.Error.
func (c *Client) Forecast(ctx context.Context, p geo.Point, day time.Time) (Forecast, error) {
	lat, lon := math.Round(p.Lat*100)/100, math.Round(p.Lon*100)/100
	date := day.UTC().Format("2006-01-02")
	key := fmt.Sprintf("%.2f,%.2f,%s", lat, lon, date)
	if f, ok := c.cache.Get(ctx, key); ok {
		return f, nil
	}
	if err := c.pace.Wait(ctx); err != nil {
		return Forecast{}, err
	}
	u := *c.base
	q := u.Query()
	q.Set("latitude", strconv.FormatFloat(lat, 'f', 2, 64))
	q.Set("longitude", strconv.FormatFloat(lon, 'f', 2, 64))
	q.Set("daily", Daily)
	q.Set("timezone", "UTC")
	q.Set("wind_speed_unit", "kmh")
	q.Set("start_date", date)
	q.Set("end_date", date)
	u.RawQuery = q.Encode()
	body, err := c.http.Get(ctx, u.String(), "application/json")
	var ue *upstream.Error
	if errors.As(err, &ue) && ue.Status == 400 {
		return Forecast{}, ErrNoForecast
	}
	if err != nil {
		return Forecast{}, err
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return Forecast{}, &upstream.Error{Status: 200, Err: fmt.Errorf("weather: malformed answer: %w", err)}
	}
	i := -1
	for k, t := range a.Daily.Time {
		if t == date {
			i = k
		}
	}
	at := func(xs []*float64) (float64, bool) {
		if i < 0 || i >= len(xs) || xs[i] == nil {
			return 0, false
		}
		return *xs[i], true
	}
	var f Forecast
	code, ok1 := at(a.Daily.Code)
	f.TempMax, _ = at(a.Daily.TempMax)
	f.TempMin, _ = at(a.Daily.TempMin)
	f.RainChance, _ = at(a.Daily.Rain)
	wind, ok2 := at(a.Daily.Wind)
	f.WindFrom, _ = at(a.Daily.WindFrom)
	f.Humidity, _ = at(a.Daily.Humidity)
	if !ok1 || !ok2 {
		return Forecast{}, ErrNoForecast // the day is in the answer but holds no forecast yet
	}
	f.Code, f.WindSpeed = int(code), wind
	c.cache.Set(ctx, key, f, CacheTTL)
	return f, nil
}

// Icon names the sky of a WMO weather code: clear, partly_cloudy, cloudy,
// fog, drizzle, rain, snow, showers or thunderstorm.
func Icon(code int) string {
	switch {
	case code <= 1:
		return "clear"
	case code == 2:
		return "partly_cloudy"
	case code == 3:
		return "cloudy"
	case code == 45 || code == 48:
		return "fog"
	case code >= 51 && code <= 57:
		return "drizzle"
	case code >= 61 && code <= 67:
		return "rain"
	case code >= 71 && code <= 77 || code == 85 || code == 86:
		return "snow"
	case code >= 80 && code <= 82:
		return "showers"
	case code >= 95:
		return "thunderstorm"
	}
	return "cloudy"
}

// Compass is a direction in degrees as one of 8 points (N, NE, E …).
func Compass(deg float64) string {
	points := [...]string{"N", "NE", "E", "SE", "S", "SW", "W", "NW"}
	i := int(math.Round(math.Mod(math.Mod(deg, 360)+360, 360)/45)) % 8
	return points[i]
}

// Relative classifies the wind against a heading (degrees, start to end):
// a wind from within 60° of where the rider goes is a headwind, from 120°
// or more a tailwind, else a crosswind (pipeline.md §7).
func Relative(windFrom, heading float64) string {
	d := math.Abs(math.Mod(windFrom-heading+540, 360) - 180)
	switch {
	case d <= 60:
		return "headwind"
	case d >= 120:
		return "tailwind"
	}
	return "crosswind"
}

// Comfort is the comfort index of pipeline.md §7: 100 less each term,
// truncated to an integer, never below 0.
func Comfort(f Forecast) int {
	heat := 0.0
	if f.TempMax > 30 {
		heat = 2 * (f.TempMax - 30)
	} else if f.TempMin < 5 {
		heat = 2 * (5 - f.TempMin)
	}
	score := 100 - min(20, int(heat)) - min(30, int(1.5*max(0, f.WindSpeed-20))) -
		min(20, int(0.5*max(0, f.Humidity-80))) - min(30, int(0.5*max(0, f.RainChance-20)))
	return max(0, score)
}
