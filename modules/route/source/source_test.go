package source_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/source"
	"cairn.dev/cairn/outbound"
)

// answer is what the fake providers serve at a path.
type answer struct {
	status   int // 0 means 200
	body     string
	location string // sent as Location, for redirects
}

// providers answers like Komoot, Strava and RideWithGPS at once, from the
// answers a test sets, and counts the requests per path.
type providers struct {
	url     string // where the fake providers listen
	mu      sync.Mutex
	answers map[string]answer
	hits    map[string]int
}

func (p *providers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.hits[r.URL.Path]++
	a, ok := p.answers[r.URL.Path]
	p.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if a.location != "" {
		w.Header().Set("Location", a.location)
	}
	if a.status != 0 {
		w.WriteHeader(a.status)
	}
	w.Write([]byte(a.body))
}

func (p *providers) set(path string, a answer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answers[path] = a
}

func (p *providers) hitsOf(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.hits[path]
}

// paths lists every path requested, for "nothing else was asked" checks.
func (p *providers) paths() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for k := range p.hits {
		out = append(out, k)
	}
	return out
}

// testFetch reaches the local server over http and retries without delay.
func testFetch() outbound.Options {
	return outbound.Options{
		AllowHTTP:  true,
		Allow:      []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")},
		RetryDelay: time.Millisecond,
	}
}

// setup starts the fake providers and a Fetcher pointed at them.
func setup(t *testing.T, opts source.Options) (*source.Fetcher, *providers) {
	t.Helper()
	p := &providers{answers: map[string]answer{}, hits: map[string]int{}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	p.url = srv.URL
	opts.KomootURL, opts.StravaURL, opts.RideWithGPSURL = srv.URL, srv.URL, srv.URL
	if opts.Fetch.Allow == nil && !opts.Fetch.AllowHTTP {
		opts.Fetch = testFetch()
	}
	f, err := source.New(opts)
	require.NoError(t, err)
	return f, p
}

var (
	trackA = []geo.Point{{Lat: 45.0641, Lon: 6.4078, Ele: 2642}, {Lat: 45.0712, Lon: 6.4153, Ele: 2580.5}, {Lat: 45.08, Lon: 6.42}}
	trackB = []geo.Point{{Lat: 44.1738, Lon: 5.2789, Ele: 1909}, {Lat: 44.1801, Lon: 5.2702, Ele: 1850}}
	trackC = []geo.Point{{Lat: -33.9, Lon: 18.4, Ele: 12}, {Lat: -33.91, Lon: 18.41, Ele: 15}}
)

// komootHTML wraps the page data the way Komoot does: JSON, inside a
// JavaScript string literal, handed to kmtBoot.setProps in a script.
func komootHTML(t *testing.T, data any) string {
	t.Helper()
	doc, err := json.Marshal(data)
	require.NoError(t, err)
	lit, err := json.Marshal(string(doc)) // a JSON string is a valid JS literal
	require.NoError(t, err)
	return `<!DOCTYPE html><html><head><title>komoot</title>
<script>window.kmtBoot = window.kmtBoot || {};</script>
<script>kmtBoot.setProps(` + string(lit) + `);</script>
</head><body><div id="pageMountNode"></div></body></html>`
}

// komootTour is a tour page as Komoot answers it, with some of the fields
// the parser ignores.
func komootTour(t *testing.T, name string, points []geo.Point) string {
	t.Helper()
	items := make([]map[string]any, len(points))
	for i, p := range points {
		items[i] = map[string]any{"lat": p.Lat, "lng": p.Lon, "alt": p.Ele, "t": i * 1000}
	}
	return komootHTML(t, map[string]any{
		"kmtx": map[string]any{"screen": map[string]any{"title": name + " | komoot"}},
		"page": map[string]any{"_embedded": map[string]any{"tour": map[string]any{
			"id": "1", "name": name, "sport": "touringbicycle", "distance": 12345.6,
			"_embedded": map[string]any{"coordinates": map[string]any{"items": items}},
		}}},
	})
}

// komootCollection is a collection page listing items, each an id and type.
func komootCollection(t *testing.T, name string, items ...map[string]any) string {
	t.Helper()
	return komootHTML(t, map[string]any{
		"page": map[string]any{"_embedded": map[string]any{"collectionHal": map[string]any{
			"id": 9, "name": name, "type": "personal",
			"_embedded": map[string]any{"compilation": map[string]any{
				"_embedded": map[string]any{"items": items},
			}},
		}}},
	})
}

func stravaGPX(t *testing.T, name string, points []geo.Point) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, export.WriteGPX(&b, export.Track{Name: name, Points: points}))
	return b.String()
}

func rwgpsJSON(t *testing.T, name string, points []geo.Point) string {
	t.Helper()
	tps := make([]map[string]any, len(points))
	for i, p := range points {
		tps[i] = map[string]any{"lat": p.Lat, "lng": p.Lon, "e": p.Ele, "d": float64(i) * 100}
	}
	b, err := json.Marshal(map[string]any{"type": "route", "route": map[string]any{
		"id": 7, "name": name, "distance": 1234.5, "track_points": tps,
	}})
	require.NoError(t, err)
	return string(b)
}

func TestRecognise(t *testing.T) {
	t.Parallel()

	tests := []struct {
		give string
		want source.Ref
	}{
		{give: "https://www.komoot.com/tour/123456", want: source.Ref{SourceType: source.TypeKomootTour, ID: "123456"}},
		{give: "https://www.komoot.com/de-de/tour/123456", want: source.Ref{SourceType: source.TypeKomootTour, ID: "123456"}},
		{give: "https://www.komoot.com/fr-fr/tour/1?ref=wtd&share_token=abc", want: source.Ref{SourceType: source.TypeKomootTour, ID: "1"}},
		{give: "  https://komoot.com/tour/42/  ", want: source.Ref{SourceType: source.TypeKomootTour, ID: "42"}},
		{give: "https://www.komoot.com/collection/987#map", want: source.Ref{SourceType: source.TypeKomootCollection, ID: "987"}},
		{give: "https://www.komoot.com/en-gb/collection/987", want: source.Ref{SourceType: source.TypeKomootCollection, ID: "987"}},
		{give: "https://www.strava.com/routes/3141592653", want: source.Ref{SourceType: source.TypeStravaRoute, ID: "3141592653"}},
		{give: "https://strava.com/routes/5", want: source.Ref{SourceType: source.TypeStravaRoute, ID: "5"}},
		{give: "https://ridewithgps.com/routes/456", want: source.Ref{SourceType: source.TypeRideWithGPS, ID: "456"}},
		{give: "https://www.ridewithgps.com/routes/456?privacy_code=x", want: source.Ref{SourceType: source.TypeRideWithGPS, ID: "456"}},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			got, err := source.Recognise(tt.give)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRecogniseRefuses(t *testing.T) {
	t.Parallel()

	tests := []string{
		"",
		"http://www.komoot.com/tour/1",                    // https only
		"https://www.komoot.de/tour/1",                    // other domain
		"https://www.komoot.com/tour/",                    // no id
		"https://www.komoot.com/tour/12ab",                // not digits
		"https://www.komoot.com/smarttour/1",              // unsupported kind
		"https://www.komoot.com/tour/1/embed",             // more path
		"https://www.komoot.com/tour/1/../../admin",       // traversal
		"https://www.komoot.com/deu/tour/1",               // not a locale
		"https://www.komoot.com.evil.test/tour/1",         // suffix host
		"https://www.komoot.com@evil.test/tour/1",         // userinfo trick
		"https://www.komoot.com:8443/tour/1",              // port
		"https://evil.test/https://www.komoot.com/tour/1", // not anchored
		"https://evil.test/?u=https://www.strava.com/routes/1",
		"https://www.strava.com/routes/1/export_gpx",
		"https://www.strava.com/activities/1",
		"https://ridewithgps.com/trips/1",
		"https://ridewithgps.com/routes/1.json",
		"https://www.komoot.com/tour/12345678901234567890",  // 20 digits
		"https://www.komoot.com/tour/1\nhttps://evil.test/", // second line
		"file:///etc/passwd",
	}
	for _, give := range tests {
		t.Run(give, func(t *testing.T) {
			t.Parallel()
			_, err := source.Recognise(give)
			require.ErrorIs(t, err, source.ErrUnsupported)
		})
	}
}

func TestFetchKomootTour(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})
	p.set("/tour/123456", answer{body: komootTour(t, `Col du "Galibier" & Lautaret — été`, trackA)})

	got, err := f.Fetch(context.Background(), "https://www.komoot.com/de-de/tour/123456?ref=wtd")

	require.NoError(t, err)
	assert.Equal(t, source.Route{
		Title:      `Col du "Galibier" & Lautaret — été`,
		SourceType: source.TypeKomootTour,
		Tracks:     [][]geo.Point{trackA},
	}, got)
	// Only the id travels: the locale, query and host of the caller's URL
	// are not requested.
	assert.Equal(t, []string{"/tour/123456"}, p.paths())
}

func TestFetchKomootCollection(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})
	p.set("/collection/9", answer{body: komootCollection(t, "Alpes 2026",
		map[string]any{"id": 11, "type": "tour_planned"},
		map[string]any{"id": 12, "type": "tour_planned"}, // removed: 404
		map[string]any{"id": 13, "type": "highlight"},    // not a tour
		map[string]any{"id": "14", "type": "tour_recorded"},
		map[string]any{"id": 15, "type": "tour_planned"}, // private: 403
		map[string]any{"id": "../admin", "type": "tour_planned"},
		map[string]any{"id": 16}, // type absent
	)})
	p.set("/tour/11", answer{body: komootTour(t, "Day 1", trackA)})
	p.set("/tour/14", answer{body: komootTour(t, "Day 2", trackB)})
	p.set("/tour/15", answer{status: http.StatusForbidden})
	p.set("/tour/16", answer{body: komootTour(t, "Day 3", trackC)})

	got, err := f.Fetch(context.Background(), "https://www.komoot.com/collection/9")

	require.NoError(t, err)
	assert.Equal(t, source.Route{
		Title:      "Alpes 2026",
		SourceType: source.TypeKomootCollection,
		Tracks:     [][]geo.Point{trackA, trackB, trackC}, // the listing's order
	}, got)
	assert.Equal(t, 1, p.hitsOf("/tour/12"), "404 is not retried")
	assert.Equal(t, 1, p.hitsOf("/tour/15"), "403 is not retried")
	assert.Zero(t, p.hitsOf("/tour/13"), "highlights are not fetched")
	assert.ElementsMatch(t, []string{"/collection/9", "/tour/11", "/tour/12", "/tour/14", "/tour/15", "/tour/16"}, p.paths())
}

func TestFetchKomootCollectionWithoutAnyTourFails(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})
	p.set("/collection/9", answer{body: komootCollection(t, "Gone",
		map[string]any{"id": 11, "type": "tour_planned"},
		map[string]any{"id": 12, "type": "tour_planned"},
	)})
	p.set("/tour/12", answer{status: http.StatusServiceUnavailable})

	_, err := f.Fetch(context.Background(), "https://www.komoot.com/collection/9")

	require.ErrorIs(t, err, source.ErrFetchFailed)
	assert.Equal(t, 3, p.hitsOf("/tour/12"), "503 is retried twice, then the tour is skipped")
}

func TestFetchKomootCollectionFailsOnUnreadableTour(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})
	p.set("/collection/9", answer{body: komootCollection(t, "Broken",
		map[string]any{"id": 11, "type": "tour_planned"},
		map[string]any{"id": 12, "type": "tour_planned"},
	)})
	p.set("/tour/11", answer{body: komootTour(t, "Day 1", trackA)})
	p.set("/tour/12", answer{body: "<html>maintenance</html>"})

	_, err := f.Fetch(context.Background(), "https://www.komoot.com/collection/9")

	require.ErrorIs(t, err, source.ErrFetchFailed)
}

func TestFetchStravaRoute(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})
	p.set("/routes/3141592653/export_gpx", answer{body: stravaGPX(t, "Tour du Mont Blanc", trackA)})

	got, err := f.Fetch(context.Background(), "https://www.strava.com/routes/3141592653")

	require.NoError(t, err)
	assert.Equal(t, source.Route{Title: "Tour du Mont Blanc", SourceType: source.TypeStravaRoute, Tracks: [][]geo.Point{trackA}}, got)
}

func TestFetchStravaRouteJoinsTracks(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})
	p.set("/routes/5/export_gpx", answer{body: `<?xml version="1.0"?>
<gpx version="1.1" creator="StravaGPX" xmlns="http://www.topografix.com/GPX/1/1">
<trk><name>Split</name><trkseg><trkpt lat="1" lon="2"><ele>3</ele></trkpt></trkseg></trk>
<trk><trkseg><trkpt lat="4" lon="5"/></trkseg></trk></gpx>`})

	got, err := f.Fetch(context.Background(), "https://strava.com/routes/5")

	require.NoError(t, err)
	assert.Equal(t, [][]geo.Point{{{Lat: 1, Lon: 2, Ele: 3}, {Lat: 4, Lon: 5}}}, got.Tracks)
}

func TestFetchRideWithGPSRoute(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})
	p.set("/routes/456.json", answer{body: rwgpsJSON(t, " Route des Grandes Alpes ", trackB)})

	got, err := f.Fetch(context.Background(), "https://ridewithgps.com/routes/456")

	require.NoError(t, err)
	assert.Equal(t, source.Route{Title: "Route des Grandes Alpes", SourceType: source.TypeRideWithGPS, Tracks: [][]geo.Point{trackB}}, got)
}

func TestFetchRideWithGPSRouteInXYForm(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})
	p.set("/routes/8.json", answer{body: `{"route":{"name":"Old","track_points":[{"x":6.2,"y":45.1,"e":100},{"x":6.3,"y":45.2}]}}`})

	got, err := f.Fetch(context.Background(), "https://ridewithgps.com/routes/8")

	require.NoError(t, err)
	assert.Equal(t, [][]geo.Point{{{Lat: 45.1, Lon: 6.2, Ele: 100}, {Lat: 45.2, Lon: 6.3}}}, got.Tracks)
}

func TestFetchFailures(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		url  string
		path string
		give answer
	}{
		{name: "komoot tour removed", url: "https://www.komoot.com/tour/77", path: "/tour/77", give: answer{status: 404}},
		{name: "komoot tour private", url: "https://www.komoot.com/tour/77", path: "/tour/77", give: answer{status: 403}},
		{name: "komoot page without data", url: "https://www.komoot.com/tour/77", path: "/tour/77", give: answer{body: "<html><body>Sign in</body></html>"}},
		{name: "komoot page with broken data", url: "https://www.komoot.com/tour/77", path: "/tour/77", give: answer{body: `<script>kmtBoot.setProps("{\"page\":");</script>`}},
		{name: "komoot page without a tour", url: "https://www.komoot.com/tour/77", path: "/tour/77", give: answer{body: `<script>kmtBoot.setProps("{\"page\":{}}");</script>`}},
		{name: "komoot coordinate out of range", url: "https://www.komoot.com/tour/77", path: "/tour/77", give: answer{body: `<script>kmtBoot.setProps("{\"page\":{\"_embedded\":{\"tour\":{\"_embedded\":{\"coordinates\":{\"items\":[{\"lat\":91,\"lng\":0}]}}}}}}");</script>`}},
		{name: "komoot collection removed", url: "https://www.komoot.com/collection/9", path: "/collection/9", give: answer{status: 404}},
		{name: "komoot collection page is a tour page", url: "https://www.komoot.com/collection/9", path: "/collection/9", give: answer{body: `<script>kmtBoot.setProps("{\"page\":{\"_embedded\":{\"tour\":{}}}}");</script>`}},
		{name: "strava route private", url: "https://www.strava.com/routes/5", path: "/routes/5/export_gpx", give: answer{status: 404}},
		{name: "strava answer with DOCTYPE", url: "https://www.strava.com/routes/5", path: "/routes/5/export_gpx", give: answer{body: `<!DOCTYPE gpx [<!ENTITY x "y">]><gpx><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>`}},
		{name: "strava login page", url: "https://www.strava.com/routes/5", path: "/routes/5/export_gpx", give: answer{body: "<html><body>Log in</body></html>"}},
		{name: "ridewithgps route removed", url: "https://ridewithgps.com/routes/7", path: "/routes/7.json", give: answer{status: 404}},
		{name: "ridewithgps route private", url: "https://ridewithgps.com/routes/7", path: "/routes/7.json", give: answer{status: 403}},
		{name: "ridewithgps answer not JSON", url: "https://ridewithgps.com/routes/7", path: "/routes/7.json", give: answer{body: "<html>"}},
		{name: "ridewithgps answer without route", url: "https://ridewithgps.com/routes/7", path: "/routes/7.json", give: answer{body: `{"error":"gone"}`}},
		{name: "ridewithgps point without lng", url: "https://ridewithgps.com/routes/7", path: "/routes/7.json", give: answer{body: `{"route":{"track_points":[{"lat":1}]}}`}},
		{name: "provider down", url: "https://ridewithgps.com/routes/7", path: "/routes/7.json", give: answer{status: 502}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, p := setup(t, source.Options{})
			p.set(tt.path, tt.give)

			_, err := f.Fetch(context.Background(), tt.url)

			require.ErrorIs(t, err, source.ErrFetchFailed)
			assert.NotErrorIs(t, err, source.ErrEmptyRoute)
			var e *source.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, source.CodeFetchFailed, e.Code)
			assert.NotNil(t, e.Err, "the cause is kept for logs")
			assert.Equal(t, "source: the route could not be fetched from its source", err.Error())
			if tt.give.status == 403 || tt.give.status == 404 {
				assert.Equal(t, 1, p.hitsOf(tt.path), "%d is not retried", tt.give.status)
			}
		})
	}
}

func TestFetchEmptyRoute(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		url  string
		path string
		give func(t *testing.T) string
	}{
		{
			name: "komoot tour", url: "https://www.komoot.com/tour/1", path: "/tour/1",
			give: func(t *testing.T) string { return komootTour(t, "Nothing", nil) },
		},
		{
			name: "komoot collection listing nothing", url: "https://www.komoot.com/collection/1", path: "/collection/1",
			give: func(t *testing.T) string { return komootCollection(t, "Nothing") },
		},
		{
			name: "strava", url: "https://www.strava.com/routes/1", path: "/routes/1/export_gpx",
			give: func(*testing.T) string {
				return `<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>x</name></trk></gpx>`
			},
		},
		{
			name: "ridewithgps", url: "https://ridewithgps.com/routes/1", path: "/routes/1.json",
			give: func(*testing.T) string { return `{"route":{"name":"Nothing","track_points":[]}}` },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, p := setup(t, source.Options{})
			p.set(tt.path, answer{body: tt.give(t)})

			_, err := f.Fetch(context.Background(), tt.url)

			require.ErrorIs(t, err, source.ErrEmptyRoute)
			assert.NotErrorIs(t, err, source.ErrFetchFailed)
			var e *source.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, source.CodeEmptyRoute, e.Code)
		})
	}
}

func TestFetchUnsupported(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})

	_, err := f.Fetch(context.Background(), "https://www.komoot.com.evil.test/tour/1")

	require.ErrorIs(t, err, source.ErrFetchFailed)
	require.ErrorIs(t, err, source.ErrUnsupported)
	assert.Empty(t, p.paths())
}

func TestFetchRefRefusesIDThatIsNotDigits(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{})

	tests := []source.Ref{
		{SourceType: source.TypeKomootTour, ID: "../collection/1"},
		{SourceType: source.TypeStravaRoute, ID: ""},
		{SourceType: source.TypeRideWithGPS, ID: "1?x=y"},
		{SourceType: "gpx_url", ID: "1"},
	}
	for _, give := range tests {
		_, err := f.FetchRef(context.Background(), give)
		require.ErrorIs(t, err, source.ErrUnsupported, "%+v", give)
	}
	assert.Empty(t, p.paths())
}

// TestFetchKeepsFetchPolicy checks that the providers' clients apply the
// fetch package's address policy: without the test's allow-list the local
// server is a forbidden address and is never reached.
func TestFetchKeepsFetchPolicy(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{Fetch: outbound.Options{AllowHTTP: true}})
	p.set("/tour/1", answer{body: komootTour(t, "x", trackA)})

	_, err := f.Fetch(context.Background(), "https://www.komoot.com/tour/1")

	require.ErrorIs(t, err, source.ErrFetchFailed)
	require.ErrorIs(t, err, outbound.ErrForbiddenAddress)
	assert.Empty(t, p.paths())
}

// TestFetchStaysOnTheProviderHost checks the host lock: a provider that
// redirects to another host is not followed, even one the address policy
// would let through.
func TestFetchStaysOnTheProviderHost(t *testing.T) {
	t.Parallel()
	var strayed atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { strayed.Add(1) }))
	t.Cleanup(other.Close)
	f, p := setup(t, source.Options{})
	p.set("/routes/7.json", answer{status: http.StatusFound, location: strings.Replace(other.URL, "127.0.0.1", "localhost", 1)})

	_, err := f.Fetch(context.Background(), "https://ridewithgps.com/routes/7")

	require.ErrorIs(t, err, source.ErrFetchFailed)
	require.ErrorIs(t, err, outbound.ErrHostNotAllowed)
	assert.Zero(t, strayed.Load())
}

func TestFetchCachesPerRef(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	var clock sync.Mutex
	cache := source.NewMemoryCache(0, func() time.Time {
		clock.Lock()
		defer clock.Unlock()
		return now
	})
	advance := func(d time.Duration) {
		clock.Lock()
		defer clock.Unlock()
		now = now.Add(d)
	}
	f, p := setup(t, source.Options{Cache: cache})
	p.set("/routes/456.json", answer{body: rwgpsJSON(t, "Cached", trackB)})
	const url = "https://ridewithgps.com/routes/456"

	first, err := f.Fetch(context.Background(), url)
	require.NoError(t, err)
	first.Tracks[0][0].Lat = 0 // a caller's change must not reach the cache

	advance(23 * time.Hour)
	second, err := f.Fetch(context.Background(), "https://www.ridewithgps.com/routes/456?x=1")
	require.NoError(t, err)
	assert.Equal(t, 1, p.hitsOf("/routes/456.json"), "same route id: served from the cache")
	assert.Equal(t, [][]geo.Point{trackB}, second.Tracks)

	_, err = f.Fetch(context.Background(), "https://www.strava.com/routes/456")
	require.Error(t, err, "another source with the same id is another route")

	advance(time.Hour)
	_, err = f.Fetch(context.Background(), url)
	require.NoError(t, err)
	assert.Equal(t, 2, p.hitsOf("/routes/456.json"), "after 24 h the route is fetched again")
}

func TestFetchDoesNotCacheFailures(t *testing.T) {
	t.Parallel()
	f, p := setup(t, source.Options{Cache: source.NewMemoryCache(0, nil)})
	p.set("/tour/1", answer{status: http.StatusNotFound})

	_, err := f.Fetch(context.Background(), "https://www.komoot.com/tour/1")
	require.ErrorIs(t, err, source.ErrFetchFailed)
	p.set("/tour/1", answer{body: komootTour(t, "Back", trackA)})
	got, err := f.Fetch(context.Background(), "https://www.komoot.com/tour/1")

	require.NoError(t, err)
	assert.Equal(t, "Back", got.Title)
}

func TestMemoryCacheEvictsWhenFull(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	cache := source.NewMemoryCache(2, func() time.Time { return now })
	ctx := context.Background()

	cache.Set(ctx, "a", source.Route{Title: "a"}, time.Hour)
	cache.Set(ctx, "b", source.Route{Title: "b"}, 2*time.Hour)
	cache.Set(ctx, "c", source.Route{Title: "c"}, 3*time.Hour)

	_, ok := cache.Get(ctx, "a")
	assert.False(t, ok, "the entry closest to expiry goes first")
	for _, key := range []string{"b", "c"} {
		got, ok := cache.Get(ctx, key)
		require.True(t, ok, key)
		assert.Equal(t, key, got.Title)
	}
}

func TestNewRefusesMalformedBaseURL(t *testing.T) {
	t.Parallel()

	tests := []string{"ftp://example.test", "://", "https://", "https://user@example.test", "https://example.test/?q=1"}
	for _, give := range tests {
		_, err := source.New(source.Options{KomootURL: give})
		assert.Error(t, err, give)
	}
}

func TestErrorMessagesAreGeneric(t *testing.T) {
	t.Parallel()
	cause := errors.New("GET http://10.0.0.1/tour/123: secret")

	tests := []struct {
		give *source.Error
		want string
	}{
		{give: &source.Error{Code: source.CodeFetchFailed, Err: cause}, want: "source: the route could not be fetched from its source"},
		{give: &source.Error{Code: source.CodeEmptyRoute, Err: cause}, want: "source: the route has no points"},
	}
	for _, tt := range tests {
		t.Run(tt.give.Code, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.give.Error())
			assert.ErrorIs(t, tt.give, cause)
		})
	}
}
