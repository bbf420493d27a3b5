package routing_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/routing"
)

// answer is a BRouter 1.7 GeoJSON answer, trimmed of its per-segment
// messages: totals as strings, positions as [lon, lat, ele].
const answer = `{
  "type": "FeatureCollection",
  "features": [{
    "type": "Feature",
    "properties": {
      "creator": "BRouter-1.7.7",
      "name": "brouter_trekking_0",
      "track-length": "12876",
      "filtered ascend": "184",
      "plain-ascend": "171",
      "total-time": "2713",
      "total-energy": "412345",
      "cost": "19876"
    },
    "geometry": {
      "type": "LineString",
      "coordinates": [
        [5.724500, 45.188500, 212.0],
        [5.701230, 45.120040, 260.5],
        [5.671700, 45.055600, 310.25]
      ]
    }
  }]
}`

var (
	start = geo.Point{Lat: 45.1885, Lon: 5.7245}
	via   = geo.Point{Lat: 45.12004, Lon: 5.70123}
	end   = geo.Point{Lat: 45.0556, Lon: 5.6717}
)

// setup starts a server answering with handler and a client for it, with
// opts' other fields kept.
func setup(t *testing.T, opts routing.BRouterOptions, handler http.HandlerFunc) *routing.BRouter {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	if opts.BaseURL == "" {
		opts.BaseURL = srv.URL
	} else {
		opts.BaseURL = srv.URL + opts.BaseURL
	}
	r, err := routing.NewBRouter(opts)
	require.NoError(t, err)
	return r
}

func TestBRouterRoute(t *testing.T) {
	t.Parallel()
	// The handler runs on the server's goroutine: what it saw comes back
	// through a channel.
	seen := make(chan *url.URL, 1)
	r := setup(t, routing.BRouterOptions{}, func(w http.ResponseWriter, req *http.Request) {
		seen <- req.URL
		w.Header().Set("Content-Type", "application/vnd.geo+json")
		fmt.Fprint(w, answer)
	})

	res, err := r.Route(context.Background(), []geo.Point{start, via, end})
	require.NoError(t, err)

	assert.Equal(t, routing.Result{
		Coordinates: []geo.Point{
			{Lat: 45.1885, Lon: 5.7245, Ele: 212},
			{Lat: 45.12004, Lon: 5.70123, Ele: 260.5},
			{Lat: 45.0556, Lon: 5.6717, Ele: 310.25},
		},
		Distance:      12.876,
		ElevationGain: 184,
		Duration:      2713 * time.Second,
		Approximate:   false,
	}, res)

	got := <-seen
	assert.Equal(t, "/brouter", got.Path)
	q := got.Query()
	assert.Equal(t, "5.724500,45.188500|5.701230,45.120040|5.671700,45.055600", q.Get("lonlats"), "lon,lat pairs in order")
	assert.Equal(t, routing.DefaultProfile, q.Get("profile"))
	assert.Equal(t, "geojson", q.Get("format"))
	assert.Equal(t, "0", q.Get("alternativeidx"))
}

func TestBRouterOptions(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name        string
		give        routing.BRouterOptions
		wantPath    string
		wantProfile string
	}{
		{name: "defaults", give: routing.BRouterOptions{}, wantPath: "/brouter", wantProfile: "trekking"},
		{name: "profile", give: routing.BRouterOptions{Profile: "fastbike"}, wantPath: "/brouter", wantProfile: "fastbike"},
		{name: "path prefix", give: routing.BRouterOptions{BaseURL: "/engines/bike/"}, wantPath: "/engines/bike/brouter", wantProfile: "trekking"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			seen := make(chan *url.URL, 1)
			r := setup(t, tt.give, func(w http.ResponseWriter, req *http.Request) {
				seen <- req.URL
				fmt.Fprint(w, answer)
			})

			_, err := r.Route(context.Background(), []geo.Point{start, end})
			require.NoError(t, err)
			got := <-seen
			assert.Equal(t, tt.wantPath, got.Path)
			assert.Equal(t, tt.wantProfile, got.Query().Get("profile"))
		})
	}
}

func TestBRouterFallsBackWhenTotalsAreMissing(t *testing.T) {
	t.Parallel()
	// Old servers write no total-time; numbers may also come unquoted.
	r := setup(t, routing.BRouterOptions{}, func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"type":"FeatureCollection","features":[{"type":"Feature",
			"properties":{"filtered ascend":42},
			"geometry":{"type":"LineString","coordinates":[[6,45],[6,45.135]]}}]}`)
	})

	res, err := r.Route(context.Background(), []geo.Point{start, end})
	require.NoError(t, err)

	wantKm := geo.Distance(geo.Point{Lat: 45, Lon: 6}, geo.Point{Lat: 45.135, Lon: 6}) / 1000
	assert.InDelta(t, wantKm, res.Distance, 1e-9, "length of the line")
	assert.InDelta(t, float64(time.Duration(wantKm/routing.DefaultSpeed*float64(time.Hour))), float64(res.Duration), float64(time.Millisecond))
	assert.Equal(t, 42.0, res.ElevationGain)
	assert.Zero(t, res.Coordinates[0].Ele, "no elevation given")
	assert.False(t, res.Approximate)
}

func TestBRouterUpstreamErrors(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name        string
		status      int
		body        string
		maxBytes    int64
		wantStatus  int
		wantMessage string
	}{
		{
			name:   "engine refusal",
			status: http.StatusBadRequest, body: "from-position not mapped in existing datafile\n",
			wantStatus: 400, wantMessage: "from-position not mapped in existing datafile",
		},
		{
			name:   "server error keeps the first line only",
			status: http.StatusInternalServerError, body: "java.lang.NullPointerException\n\tat btools.router\n",
			wantStatus: 500, wantMessage: "java.lang.NullPointerException",
		},
		{
			name:   "long message is bounded, in characters",
			status: http.StatusBadGateway, body: strings.Repeat("é", 300),
			wantStatus: 502, wantMessage: strings.Repeat("é", 200),
		},
		{
			name:   "message is cleaned",
			status: http.StatusBadRequest, body: "\x1b[31m position\x00 not\tmapped \u202E\r\nat btools.router\n",
			wantStatus: 400, wantMessage: "[31m position not mapped",
		},
		{name: "not JSON", status: http.StatusOK, body: "<html>maintenance</html>", wantStatus: 200},
		{name: "no feature", status: http.StatusOK, body: `{"type":"FeatureCollection","features":[]}`, wantStatus: 200},
		{
			name:   "one position only",
			status: http.StatusOK, body: `{"features":[{"geometry":{"type":"LineString","coordinates":[[6,45]]}}]}`,
			wantStatus: 200,
		},
		{
			name:   "position out of range",
			status: http.StatusOK, body: `{"features":[{"geometry":{"type":"LineString","coordinates":[[6,45],[45,600]]}}]}`,
			wantStatus: 200,
		},
		{
			name:   "total is not a number",
			status: http.StatusOK, body: `{"features":[{"properties":{"track-length":"far"},"geometry":{"type":"LineString","coordinates":[[6,45],[6,46]]}}]}`,
			wantStatus: 200,
		},
		{name: "answer too large", status: http.StatusOK, body: answer, maxBytes: 64, wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := setup(t, routing.BRouterOptions{MaxBytes: tt.maxBytes}, func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			})

			_, err := r.Route(context.Background(), []geo.Point{start, end})

			require.ErrorIs(t, err, routing.ErrUpstream)
			var upstream *routing.UpstreamError
			require.ErrorAs(t, err, &upstream)
			assert.Equal(t, tt.wantStatus, upstream.Status)
			assert.Equal(t, tt.wantMessage, upstream.Message)
			if tt.wantMessage == "" {
				assert.Error(t, upstream.Err, "a 200 that is not a route says why")
			}
		})
	}
}

func TestBRouterTimeout(t *testing.T) {
	t.Parallel()
	// The server never answers; only the client's own timeout ends the call.
	r := setup(t, routing.BRouterOptions{Timeout: time.Millisecond}, func(_ http.ResponseWriter, req *http.Request) {
		<-req.Context().Done()
	})

	_, err := r.Route(context.Background(), []geo.Point{start, end})

	require.ErrorIs(t, err, routing.ErrUpstream)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var upstream *routing.UpstreamError
	require.ErrorAs(t, err, &upstream)
	assert.Zero(t, upstream.Status, "no answer arrived")
}

func TestBRouterHonoursTheCallersContext(t *testing.T) {
	t.Parallel()
	r := setup(t, routing.BRouterOptions{}, func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, answer)
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := r.Route(ctx, []geo.Point{start, end})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestBRouterUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens there any more
	r, err := routing.NewBRouter(routing.BRouterOptions{BaseURL: srv.URL})
	require.NoError(t, err)

	_, err = r.Route(context.Background(), []geo.Point{start, end})
	assert.ErrorIs(t, err, routing.ErrUpstream)
}

func TestBRouterRefusesViaPointsWithoutARequest(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give []geo.Point
		want error
	}{
		{name: "one point", give: []geo.Point{start}, want: routing.ErrTooFewPoints},
		{name: "bad latitude", give: []geo.Point{start, {Lat: -91, Lon: 6}}, want: routing.ErrInvalidPoint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var requests atomic.Int32
			r := setup(t, routing.BRouterOptions{}, func(w http.ResponseWriter, _ *http.Request) {
				requests.Add(1)
				fmt.Fprint(w, answer)
			})

			_, err := r.Route(context.Background(), tt.give)
			assert.ErrorIs(t, err, tt.want)
			assert.False(t, errors.Is(err, routing.ErrUpstream))
			assert.Zero(t, requests.Load())
		})
	}
}

func TestNewBRouterRefusesABadBaseURL(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give string
	}{
		{name: "empty", give: ""},
		{name: "relative", give: "brouter:17777"},
		{name: "no host", give: "http:///brouter"},
		{name: "other scheme", give: "ftp://brouter"},
		{name: "unparsable", give: "http://[::1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := routing.NewBRouter(routing.BRouterOptions{BaseURL: tt.give})
			assert.ErrorIs(t, err, routing.ErrBaseURL)
		})
	}
}
