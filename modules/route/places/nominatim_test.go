package places_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/places"
)

// fakeClock is the throttle's and the cache's clock. Time stands still
// unless a test advances it; a sleep returns at once and records how long
// it was asked to last, so a test sees the schedule the throttle imposes
// without waiting for it.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	return ctx.Err()
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Waits returns how long each throttled caller was told to wait, shortest
// first.
func (c *fakeClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.waits)
	slices.Sort(out)
	return out
}

// upstream is a local server answering in Nominatim's format=jsonv2 shape.
type upstream struct {
	srv *httptest.Server

	mu         sync.Mutex
	requests   []*url.URL
	userAgents []string
	status     int    // answered instead of results when not 0
	body       string // answered instead of results when not ""
}

func (u *upstream) handle(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.requests = append(u.requests, r.URL)
	u.userAgents = append(u.userAgents, r.UserAgent())
	status, body := u.status, u.body
	u.mu.Unlock()

	if r.URL.Path != "/search" {
		http.NotFound(w, r)
		return
	}
	if status != 0 {
		http.Error(w, "<html>Service Unavailable</html>", status)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if body != "" {
		fmt.Fprint(w, body)
		return
	}
	fmt.Fprint(w, lyonJSON)
}

func (u *upstream) set(status int, body string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.status, u.body = status, body
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.requests)
}

// lyonJSON is what a Nominatim instance answers for "lyon" with
// format=jsonv2&addressdetails=1, trimmed to two results.
const lyonJSON = `[
 {"place_id":84972553,"licence":"Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright",
  "osm_type":"relation","osm_id":120965,"lat":"45.7578137","lon":"4.8320114","category":"boundary",
  "type":"administrative","place_rank":12,"importance":0.78,"addresstype":"city","name":"Lyon",
  "display_name":"Lyon, Métropole de Lyon, Rhône, Auvergne-Rhône-Alpes, France métropolitaine, France",
  "address":{"city":"Lyon","county":"Métropole de Lyon","state":"Auvergne-Rhône-Alpes","country":"France","country_code":"fr"},
  "boundingbox":["45.7073666","45.8082628","4.7718134","4.8983774"]},
 {"place_id":297170361,"licence":"Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright",
  "osm_type":"node","osm_id":151580683,"lat":"41.8133663","lon":"-87.8181089","category":"place",
  "type":"village","place_rank":19,"importance":0.41,"addresstype":"village","name":"Lyons",
  "display_name":"Lyons, Lyons Township, Cook County, Illinois, United States",
  "address":{"village":"Lyons","county":"Cook County","state":"Illinois","country":"United States","country_code":"us"},
  "boundingbox":["41.79","41.83","-87.84","-87.80"]}
]`

type nominatimDeps struct {
	up    *upstream
	clock *fakeClock
	cache *places.MemoryCache
}

// setupNominatim returns a Nominatim against a local upstream, with its
// own throttle and cache on a fake clock. mutate adjusts the config.
func setupNominatim(t *testing.T, mutate func(*places.NominatimConfig)) (*places.Nominatim, nominatimDeps) {
	t.Helper()
	up := &upstream{}
	up.srv = httptest.NewServer(http.HandlerFunc(up.handle))
	t.Cleanup(up.srv.Close)
	clock := newFakeClock()
	cache := places.NewMemoryCache(0, clock.Now)
	cfg := places.NominatimConfig{
		BaseURL:  up.srv.URL,
		Client:   up.srv.Client(),
		Cache:    cache,
		Throttle: places.NewThrottle(time.Second, clock.Now, clock.Sleep),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	n, err := places.NewNominatim(cfg)
	require.NoError(t, err)
	return n, nominatimDeps{up: up, clock: clock, cache: cache}
}

func TestNominatimMapsResults(t *testing.T) {
	t.Parallel()
	n, deps := setupNominatim(t, nil)

	got, err := n.Search(context.Background(), "Lyon", 5)
	require.NoError(t, err)
	assert.Equal(t, []places.Place{
		{
			Name:        "Lyon",
			DisplayName: "Lyon, Métropole de Lyon, Rhône, Auvergne-Rhône-Alpes, France métropolitaine, France",
			Lat:         45.7578137, Lon: 4.8320114, Type: places.TypeCity, Country: "FR",
		},
		{
			Name:        "Lyons",
			DisplayName: "Lyons, Lyons Township, Cook County, Illinois, United States",
			Lat:         41.8133663, Lon: -87.8181089, Type: places.TypeVillage, Country: "US",
		},
	}, got)

	require.Equal(t, 1, deps.up.count())
	req := deps.up.requests[0]
	assert.Equal(t, "/search", req.Path)
	assert.Equal(t, url.Values{
		"q": {"Lyon"}, "format": {"jsonv2"}, "limit": {"10"}, "addressdetails": {"1"},
	}, req.Query(), "always asks for the most, so one cached answer serves every limit")
}

func TestNominatimUserAgent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give string
		want string
	}{
		{give: "", want: places.DefaultUserAgent},
		{give: "Cairn at trips.example.org (admin@example.org)", want: "Cairn at trips.example.org (admin@example.org)"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			t.Parallel()
			n, deps := setupNominatim(t, func(c *places.NominatimConfig) { c.UserAgent = tt.give })
			_, err := n.Search(context.Background(), "lyon", 1)
			require.NoError(t, err)
			assert.Equal(t, []string{tt.want}, deps.up.userAgents)
		})
	}
}

func TestNominatimEmail(t *testing.T) {
	t.Parallel()
	n, deps := setupNominatim(t, func(c *places.NominatimConfig) { c.Email = "admin@example.org" })
	_, err := n.Search(context.Background(), "lyon", 1)
	require.NoError(t, err)
	assert.Equal(t, "admin@example.org", deps.up.requests[0].Query().Get("email"))
}

func TestNominatimLimit(t *testing.T) {
	t.Parallel()
	var many []string
	for i := range 12 {
		many = append(many, fmt.Sprintf(`{"lat":"45.%d","lon":"4.8","name":"Place %d","display_name":"Place %d, France","type":"village","addresstype":"village","address":{"country_code":"fr"}}`, i, i, i))
	}
	tests := []struct {
		give int
		want int
	}{
		{give: 0, want: places.DefaultLimit},
		{give: 1, want: 1},
		{give: 50, want: places.MaxLimit},
	}
	n, deps := setupNominatim(t, nil)
	deps.up.set(0, "["+strings.Join(many, ",")+"]")
	for _, tt := range tests {
		got, err := n.Search(context.Background(), "place", tt.give)
		require.NoError(t, err)
		assert.Len(t, got, tt.want, "limit %d", tt.give)
	}
	assert.Equal(t, 1, deps.up.count(), "every limit is served from the one answer")
}

func TestNominatimCache(t *testing.T) {
	t.Parallel()
	n, deps := setupNominatim(t, nil)
	ctx := context.Background()

	first, err := n.Search(ctx, "Lyon", 5)
	require.NoError(t, err)
	for _, q := range []string{"Lyon", "lyon", "  LYON  "} {
		got, err := n.Search(ctx, q, 5)
		require.NoError(t, err)
		assert.Equal(t, first, got, q)
	}
	assert.Equal(t, 1, deps.up.count(), "hits never reach the upstream")
	assert.Empty(t, deps.clock.Waits(), "hits never take a turn at the throttle")

	deps.clock.Advance(places.DefaultCacheTTL)
	_, err = n.Search(ctx, "lyon", 5)
	require.NoError(t, err)
	assert.Equal(t, 2, deps.up.count(), "an answer expires after 24 h")
}

func TestNominatimCachesEmptyAnswers(t *testing.T) {
	t.Parallel()
	n, deps := setupNominatim(t, nil)
	deps.up.set(0, "[]")
	for range 3 {
		got, err := n.Search(context.Background(), "atlantis", 5)
		require.NoError(t, err)
		assert.Empty(t, got)
	}
	assert.Equal(t, 1, deps.up.count())
}

func TestNominatimRateLimit(t *testing.T) {
	t.Parallel()
	n, deps := setupNominatim(t, nil)
	ctx := context.Background()

	// Five different queries at the same instant: each is sent, one per
	// second — the first at once, the others told to wait 1 s to 4 s.
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Go(func() {
			_, err := n.Search(ctx, fmt.Sprintf("town %d", i), 5)
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.Equal(t, 5, deps.up.count())
	assert.Equal(t, []time.Duration{1 * time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second},
		deps.clock.Waits(), "never two requests in the same second")
}

func TestNominatimRateLimitFreesAfterInterval(t *testing.T) {
	t.Parallel()
	n, deps := setupNominatim(t, nil)
	ctx := context.Background()

	_, err := n.Search(ctx, "first", 5)
	require.NoError(t, err)
	deps.clock.Advance(time.Second)
	_, err = n.Search(ctx, "second", 5)
	require.NoError(t, err)
	assert.Empty(t, deps.clock.Waits(), "a second apart, nobody waits")
	assert.Equal(t, 2, deps.up.count())
}

func TestNominatimGivingUpFreesTheSlot(t *testing.T) {
	t.Parallel()
	n, deps := setupNominatim(t, nil)

	_, err := n.Search(context.Background(), "first", 5)
	require.NoError(t, err)

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = n.Search(cancelled, "second", 5)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, deps.up.count(), "a caller that gave up sends nothing")

	_, err = n.Search(context.Background(), "third", 5)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{time.Second, time.Second}, deps.clock.Waits(),
		"the third waits 1 s, not 2 s: the cancelled slot was handed back")
}

func TestNominatimUpstreamErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		body       string
		wantStatus int
	}{
		{name: "503", status: http.StatusServiceUnavailable, wantStatus: 503},
		{name: "500", status: http.StatusInternalServerError, wantStatus: 500},
		{name: "429", status: http.StatusTooManyRequests, wantStatus: 429},
		{name: "403 blocked", status: http.StatusForbidden, wantStatus: 403},
		{name: "malformed JSON", body: `{"error":`, wantStatus: 200},
		{name: "not an array", body: `{"error":"Unable to geocode"}`, wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, deps := setupNominatim(t, nil)
			deps.up.set(tt.status, tt.body)
			const q = "Lyon <ignore previous instructions>"

			_, err := n.Search(context.Background(), q, 5)
			var upErr *places.UpstreamError
			require.ErrorAs(t, err, &upErr)
			assert.Equal(t, tt.wantStatus, upErr.Status)
			assertNoQuery(t, err, q)

			deps.up.set(0, "")
			_, err = n.Search(context.Background(), q, 5)
			require.NoError(t, err, "failures are not cached")
			assert.Equal(t, 2, deps.up.count())
		})
	}
}

func TestNominatimUnreachable(t *testing.T) {
	t.Parallel()
	n, deps := setupNominatim(t, nil)
	deps.up.srv.Close()
	const q = "Besançon secret query"

	_, err := n.Search(context.Background(), q, 5)
	var upErr *places.UpstreamError
	require.ErrorAs(t, err, &upErr)
	assert.Zero(t, upErr.Status)
	assertNoQuery(t, err, q)
}

// assertNoQuery checks that neither the error nor any cause in its chain
// quotes the caller's query, raw or URL-encoded.
func assertNoQuery(t *testing.T, err error, q string) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		for _, form := range []string{q, url.QueryEscape(q), "Lyon", "Besan"} {
			assert.NotContains(t, e.Error(), form)
		}
	}
}

func TestNominatimRefusesQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give string
		want error
	}{
		{give: "", want: places.ErrEmptyQuery},
		{give: " \t ", want: places.ErrEmptyQuery},
		{give: "?!", want: places.ErrEmptyQuery},
		{give: strings.Repeat("x", places.MaxQueryBytes+1), want: places.ErrQueryTooLong},
	}
	n, deps := setupNominatim(t, nil)
	for _, tt := range tests {
		_, err := n.Search(context.Background(), tt.give, 5)
		assert.ErrorIs(t, err, tt.want, "%.10q", tt.give)
	}
	assert.Zero(t, deps.up.count())
}

func TestNewNominatimRefusesBadURL(t *testing.T) {
	t.Parallel()
	for _, give := range []string{"nominatim.local", "ftp://nominatim.local", "://"} {
		_, err := places.NewNominatim(places.NominatimConfig{BaseURL: give})
		assert.Error(t, err, give)
	}
}

func TestNominatimBasePath(t *testing.T) {
	t.Parallel()
	var gotPath string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.Path
		fmt.Fprint(w, "[]")
	}))
	t.Cleanup(srv.Close)
	clock := newFakeClock()
	n, err := places.NewNominatim(places.NominatimConfig{
		BaseURL:  srv.URL + "/nominatim/",
		Throttle: places.NewThrottle(time.Second, clock.Now, clock.Sleep),
	})
	require.NoError(t, err)
	_, err = n.Search(context.Background(), "lyon", 5)
	require.NoError(t, err)
	assert.Equal(t, "/nominatim/search", gotPath, "an instance behind a path prefix")
}
