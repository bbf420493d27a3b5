package weather_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/upstream"
	"cairn.dev/cairn/modules/route/weather"
)

// server answers in Open-Meteo's shape; failFirst requests fail with 503
// before it answers, and a start_date of 2099 is out of its range.
func server(t *testing.T, failFirst int64) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		q := r.URL.Query()
		if n <= failFirst {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		if q.Get("start_date") >= "2099-01-01" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":true,"reason":"Parameter 'start_date' is out of allowed range"}`)
			return
		}
		require.Equal(t, weather.Daily, q.Get("daily"))
		require.Equal(t, "45.12", q.Get("latitude"))
		fmt.Fprintf(w, `{"daily":{"time":["%s"],"weather_code":[61],"temperature_2m_max":[31.5],"temperature_2m_min":[14],`+
			`"precipitation_probability_max":[70],"wind_speed_10m_max":[30],"wind_direction_10m_dominant":[270],`+
			`"relative_humidity_2m_mean":[85]}}`, q.Get("start_date"))
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

var at = geo.Point{Lat: 45.1234, Lon: 6.5}

func TestForecast(t *testing.T) {
	t.Parallel()
	srv, calls := server(t, 0)
	c, err := weather.New(srv.URL+"/v1/forecast", weather.Options{Every: time.Millisecond})
	require.NoError(t, err)
	day := time.Date(2027, 6, 3, 0, 0, 0, 0, time.UTC)
	f, err := c.Forecast(context.Background(), at, day)
	require.NoError(t, err)
	require.Equal(t, weather.Forecast{Code: 61, TempMin: 14, TempMax: 31.5, WindSpeed: 30, WindFrom: 270, Humidity: 85, RainChance: 70}, f)
	_, err = c.Forecast(context.Background(), geo.Point{Lat: 45.1201, Lon: 6.5004}, day)
	require.NoError(t, err)
	require.EqualValues(t, 1, calls.Load(), "the same point and day within 3 hours is read from the cache")

	_, err = c.Forecast(context.Background(), at, time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC))
	require.ErrorIs(t, err, weather.ErrNoForecast, "beyond the horizon: no forecast, no failure")
}

func TestForecastRetries(t *testing.T) {
	t.Parallel()
	srv, calls := server(t, 2)
	c, err := weather.New(srv.URL, weather.Options{Every: time.Millisecond, HTTP: upstream.Options{MinWait: time.Millisecond}})
	require.NoError(t, err)
	_, err = c.Forecast(context.Background(), at, time.Date(2027, 6, 3, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err, "two failures, then the answer")
	require.EqualValues(t, 3, calls.Load())

	down, downCalls := server(t, 1000)
	c, err = weather.New(down.URL, weather.Options{Every: time.Millisecond, HTTP: upstream.Options{MinWait: time.Millisecond}})
	require.NoError(t, err)
	_, err = c.Forecast(context.Background(), at, time.Date(2027, 6, 3, 0, 0, 0, 0, time.UTC))
	var ue *upstream.Error
	require.True(t, errors.As(err, &ue), "%v", err)
	require.Equal(t, http.StatusServiceUnavailable, ue.Status)
	require.EqualValues(t, 3, downCalls.Load(), "one try and two retries")
}

func TestComfortRelativeAndIcons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		give weather.Forecast
		want int
	}{
		{"mild", weather.Forecast{TempMin: 12, TempMax: 24, WindSpeed: 10, Humidity: 60, RainChance: 10}, 100},
		{"hot: 2 a degree above 30", weather.Forecast{TempMin: 20, TempMax: 35, WindSpeed: 10}, 90},
		{"cold: 2 a degree below 5, at most 20", weather.Forecast{TempMin: -20, TempMax: 2}, 80},
		{"windy: 1.5 per km/h above 20, truncated", weather.Forecast{TempMin: 10, TempMax: 20, WindSpeed: 27}, 90},
		{"wet and humid", weather.Forecast{TempMin: 10, TempMax: 20, Humidity: 100, RainChance: 100}, 60},
		{"every term at its worst: humidity costs 10 at most", weather.Forecast{TempMin: -20, TempMax: 0, WindSpeed: 100, Humidity: 100, RainChance: 100}, 10},
		{"39 is poor", weather.Forecast{TempMin: 10, TempMax: 40, WindSpeed: 40, Humidity: 80, RainChance: 40}, 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, weather.Comfort(tt.give))
		})
	}
	require.Equal(t, "headwind", weather.Relative(90, 60), "from 30° off the heading")
	require.Equal(t, "headwind", weather.Relative(0, 300), "60° exactly, across north")
	require.Equal(t, "crosswind", weather.Relative(90, 0))
	require.Equal(t, "tailwind", weather.Relative(180, 0))
	require.Equal(t, "tailwind", weather.Relative(240, 0), "120° exactly")
	require.Equal(t, "W", weather.Compass(270))
	require.Equal(t, "N", weather.Compass(350))
	require.Equal(t, "rain", weather.Icon(61))
	require.Equal(t, "thunderstorm", weather.Icon(95))
}
