package apptest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"cairn/app/config"
	"cairn/modules/route/geo"
	"cairn/modules/route/gpx"
)

// Provider is a local stand-in for Strava answering in its shape: the
// route https://www.strava.com/routes/N exports a flat GPX track of N km
// heading east at 45°N, a point every 100 m. Route 404 is missing and route
// 503 is always down.
type Provider struct {
	URL   string
	Calls atomic.Int64 // export requests served
}

// StravaRoute is the address of an N km route.
func StravaRoute(km int) string { return "https://www.strava.com/routes/" + strconv.Itoa(km) }

// NewProvider starts the provider for the test's duration.
func NewProvider(t testing.TB) *Provider {
	p := &Provider{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/routes/"), "/export_gpx")
		km, err := strconv.Atoi(id)
		if !ok || err != nil {
			http.NotFound(w, r)
			return
		}
		p.Calls.Add(1)
		switch km {
		case 404:
			http.NotFound(w, r)
			return
		case 503:
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		var buf bytes.Buffer
		if err := gpx.Write(&buf, "Test route "+id, Line(km)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/gpx+xml")
		_, _ = w.Write(buf.Bytes())
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Line is a flat line of km kilometres heading east at 45°N, a point every
// 100 m.
func Line(km int) []geo.Point {
	const lat = 45.0
	// Degrees of longitude per 100 m at 45°N on the ellipsoid, close enough
	// for a test route; lengths are measured, not assumed.
	step := 0.1 / (111.32 * 0.70710678)
	n := km*10 + 1
	out := make([]geo.Point, n)
	for i := range out {
		out[i] = geo.Point{Lat: lat, Lon: 5 + float64(i)*step}
	}
	return out
}

// WithProvider points the route sources at a local Provider.
func WithProvider(p *Provider) Option {
	return func(t testing.TB, c *config.Config) {
		c.SourceAllowHTTP = true
		c.SourceAllow = "127.0.0.1/32,::1/128"
		c.SourceBaseURLs = "strava=" + p.URL
	}
}
