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
	"cairn/modules/route/export"
	"cairn/modules/route/geo"
	"cairn/modules/route/routefixture"
)

// Provider is a local stand-in for Strava answering in its shape: the
// route https://www.strava.com/routes/N exports a flat GPX track of N km
// (see Line). Route 404 is missing and route 503 is always down.
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
		if err := export.WriteGPX(&buf, export.Track{Name: "Test route " + id, Points: Line(km)}); err != nil {
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

// Line is a flat route of km kilometres along the equator that zigzags so
// that decimation keeps a point every 500 m (routefixture.Zigzag): pacing
// then cuts within half a kilometre of its targets, as the domain's worked
// examples assume.
func Line(km int) []geo.Point { return routefixture.Zigzag(float64(km) * 1000) }

// WithProvider points the route sources at a local Provider.
func WithProvider(p *Provider) Option {
	return func(t testing.TB, c *config.Config) {
		c.SourceAllowHTTP = true
		c.SourceAllow = "127.0.0.1/32,::1/128"
		c.SourceBaseURLs = "strava=" + p.URL
	}
}
