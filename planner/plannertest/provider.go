// Package plannertest starts the trip planner for a test, with a local
// route provider standing in for Strava, on top of the framework's apptest.
package plannertest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/routefixture"
	"cairn.dev/cairn/planner"
)

// Provider is a local stand-in for Strava answering in its shape: the
// route https://www.strava.com/routes/N exports a flat GPX track of N km
// (see Line). Route 404 is missing, route 503 is always down and route 307
// redirects to another port of the same host.
type Provider struct {
	URL   string
	Calls atomic.Int64 // export requests served

	// Elsewhere is another server on the same host, on another port: route
	// 307 redirects there, which the sources must never follow.
	Elsewhere      string
	ElsewhereCalls atomic.Int64
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
		case 307:
			http.Redirect(w, r, p.Elsewhere+"/routes/120/export_gpx", http.StatusTemporaryRedirect)
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
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.ElsewhereCalls.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(other.Close)
	p.Elsewhere = other.URL
	return p
}

// Line is a flat route of km kilometres along the equator that zigzags so
// that decimation keeps a point every 500 m (routefixture.Zigzag): pacing
// then cuts within half a kilometre of its targets, as the domain's worked
// examples assume.
func Line(km int) []geo.Point { return routefixture.Zigzag(float64(km) * 1000) }

// WithProvider points the route sources at a local Provider.
func WithProvider(p *Provider) apptest.Option {
	return func(t testing.TB, c *config.Config) {
		*c = c.With("source_allow_http", true).
			With("source_allow", "127.0.0.1/32,::1/128").
			With("source_base_urls", "strava="+p.URL)
	}
}

// checkEveryRead makes every read of a trip's digest check the trip's
// revision (digest_cache_ttl 0, and no trust in notices, which arrive a
// moment after their write: digest_heard_ttl 0): tests write rows by hand
// and run replicas side by side, then read at once. A test of the
// remembered digest sets them back with an option of its own.
func checkEveryRead(_ testing.TB, c *config.Config) {
	*c = c.With("digest_cache_ttl", "0s").With("digest_heard_ttl", "0s")
}

// App is the running trip planner and its route provider.
type App struct {
	*apptest.App
	Provider *Provider // the local route provider the sources point at
}

// New starts the trip planner on the embedded defaults, its sources pointed
// at a local Provider; opts change the configuration further.
func New(t testing.TB, opts ...apptest.Option) *App {
	t.Helper()
	p := NewProvider(t)
	a := apptest.New(t, planner.Product(), append([]apptest.Option{WithProvider(p), checkEveryRead}, opts...)...)
	return &App{App: a, Provider: p}
}

// WaitSettled polls the trip's address until every computation is settled
// (done, failed or superseded) and returns its last answer.
func (a *App) WaitSettled(t testing.TB, token, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		res := a.Do(t, http.MethodGet, "/trips/"+id, token, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("trip %s: %d %s", id, res.Status, res.Body)
		}
		body := res.JSON(t)
		settled := true
		for _, s := range body["computationStatus"].(map[string]any) {
			if s == "pending" || s == "running" {
				settled = false
			}
		}
		if settled {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("trip %s did not settle: %v", id, body["computationStatus"])
		}
		time.Sleep(50 * time.Millisecond)
	}
}
