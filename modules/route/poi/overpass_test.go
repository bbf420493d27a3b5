package poi_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/poi"
)

// overpassAnswer is what a real interpreter answers to the query with out
// geom: nodes with lat/lon, ways with their node ids and geometry.
const overpassAnswer = `{
  "version": 0.6,
  "generator": "Overpass API",
  "osm3s": {"timestamp_osm_base": "2026-11-29T10:00:00Z"},
  "elements": [
    {"type": "node", "id": 1, "lat": 45.05, "lon": 6.05,
     "tags": {"tourism": "hotel", "name": "Hôtel du Col", "stars": "3", "website": "https://hotel-du-col.example",
              "addr:housenumber": "12", "addr:street": "Rue Haute", "addr:postcode": "05100", "addr:city": "Briançon",
              "contact:phone": "+33 4 92 00 00 00"}},
    {"type": "node", "id": 14, "lat": 45.01, "lon": 6.01, "tags": {"tourism": "wilderness_hut", "fee": "no"}},
    {"type": "way", "id": 100, "bounds": {"minlat": 45.0, "minlon": 6.0, "maxlat": 45.002, "maxlon": 6.002},
     "nodes": [10, 11, 12, 13, 10],
     "geometry": [{"lat": 45.0, "lon": 6.0}, {"lat": 45.0, "lon": 6.002}, {"lat": 45.002, "lon": 6.002},
                  {"lat": 45.002, "lon": 6.0}, {"lat": 45.0, "lon": 6.0}],
     "tags": {"tourism": "camp_site", "name": "Camping des Prés", "backpack": "yes", "opening_hours": "Apr-Oct"}},
    {"type": "way", "id": 101, "nodes": [20, 99], "geometry": [{"lat": 45.03, "lon": 6.03}, null],
     "tags": {"tourism": "hostel", "name": "Half Hostel"}},
    {"type": "way", "id": 102, "nodes": [97, 98], "geometry": [null, null], "tags": {"tourism": "chalet"}},
    {"type": "node", "id": 2, "lat": 45.06, "lon": 6.06, "tags": {"amenity": "cafe", "name": "Café du Centre"}},
    {"type": "way", "id": 104, "nodes": [40, 41], "geometry": [{"lat": 45.08, "lon": 6.08}, {"lat": 45.09, "lon": 6.09}],
     "tags": {"tourism": "guest_house", "name": "Gîte Inline"}},
    {"type": "node", "id": 50, "lat": 46.5, "lon": 6.05, "tags": {"tourism": "hotel", "name": "Beyond the Radius"}}
  ]
}`

// fakeOverpass records the queries it is sent and answers with status and
// body.
type fakeOverpass struct {
	mu      sync.Mutex
	queries []string
	agents  []string
}

func (f *fakeOverpass) server(t *testing.T, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			http.Error(w, "want a form POST", http.StatusBadRequest)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(raw))
		f.mu.Lock()
		f.queries = append(f.queries, form.Get("data"))
		f.agents = append(f.agents, r.UserAgent())
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOverpassCandidates(t *testing.T) {
	t.Parallel()
	fake := &fakeOverpass{}
	srv := fake.server(t, http.StatusOK, overpassAnswer)
	o := poi.NewOverpass(srv.URL)

	january := time.Date(2027, 1, 10, 0, 0, 0, 0, time.UTC)
	got, err := o.Candidates(context.Background(), end, 15, nil, &january)
	require.NoError(t, err)
	// The same answer as the local store gives for the same data
	// (TestImportThenCandidates): one ranking for both providers.
	require.Equal(t, []string{"Hôtel du Col", "Camping des Prés", "", "Half Hostel", "Gîte Inline"}, names(got))
	require.Equal(t, "12 Rue Haute, 05100 Briançon", got[0].Address)
	require.Equal(t, "node", got[0].OSMType)
	require.Equal(t, int64(1), got[0].OSMID)
	require.Equal(t, 67.5, got[0].EstimatedPriceMin)
	camp := got[1]
	require.Equal(t, "way", camp.OSMType)
	require.InDelta(t, 45.001, camp.Lat, 1e-9) // closing node counted once
	require.InDelta(t, 6.001, camp.Lon, 1e-9)
	require.True(t, camp.PossibleClosed)
	require.InDelta(t, 45.03, got[3].Lat, 1e-9) // the placed node only

	require.Len(t, fake.queries, 1)
	q := fake.queries[0]
	require.Contains(t, q, "[out:json]")
	require.Contains(t, q, "(around:15000,45.000000,6.000000)")
	require.Contains(t, q, `["tourism"~"^(camp_site|hostel|alpine_hut|chalet|guest_house|hotel|wilderness_hut)$"]`)
	require.Contains(t, q, "out body geom 500;")
	require.NotEmpty(t, fake.agents[0])
}

func TestOverpassQuery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		radiusKm float64
		types    []string
		want     []string
	}{
		{name: "default radius", radiusKm: 0, types: []string{poi.TypeHotel},
			want: []string{"(around:5000,45.000000,6.000000)", `["tourism"~"^(hotel)$"]`}},
		{name: "clamped", radiusKm: 50, types: []string{poi.TypeCampSite, poi.TypeWildernessHut},
			want: []string{"(around:15000,", `["tourism"~"^(camp_site|wilderness_hut)$"]`}},
		{name: "fraction", radiusKm: 2.5, types: nil, want: []string{"(around:2500,"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := &fakeOverpass{}
			srv := fake.server(t, http.StatusOK, `{"elements": []}`)
			got, err := poi.NewOverpass(srv.URL).Candidates(context.Background(), end, tt.radiusKm, tt.types, nil)
			require.NoError(t, err)
			require.Empty(t, got)
			require.Len(t, fake.queries, 1)
			for _, w := range tt.want {
				require.Contains(t, fake.queries[0], w)
			}
			// Both element kinds are asked for, and the output is bounded.
			require.Contains(t, fake.queries[0], "node[")
			require.Contains(t, fake.queries[0], "way[")
			require.Contains(t, fake.queries[0], "[timeout:25][maxsize:8388608]")
		})
	}
}

func TestOverpassUpstreamErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		status     int
		body       string
		maxBytes   int64
		wantStatus int
		wantRemark bool
	}{
		{name: "too many requests", status: http.StatusTooManyRequests, body: "rate limited", wantStatus: 429},
		{name: "gateway timeout", status: http.StatusGatewayTimeout, body: "", wantStatus: 504},
		{name: "malformed json", status: http.StatusOK, body: "<html>busy</html>", wantStatus: 200},
		{name: "runtime error remark", status: http.StatusOK, wantStatus: 200, wantRemark: true,
			body: `{"elements": [], "remark": "runtime error: Query timed out in \"query\" at line 3 after 25 seconds."}`},
		{name: "answer too large", status: http.StatusOK, body: overpassAnswer, maxBytes: 100, wantStatus: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := &fakeOverpass{}
			o := poi.NewOverpass(fake.server(t, tt.status, tt.body).URL)
			o.MaxBytes = tt.maxBytes
			_, err := o.Candidates(context.Background(), end, 5, nil, nil)
			require.ErrorIs(t, err, poi.ErrUpstream)
			var up *poi.UpstreamError
			require.ErrorAs(t, err, &up)
			require.Equal(t, tt.wantStatus, up.StatusCode)
			require.Equal(t, tt.wantRemark, up.Remark != "")
		})
	}
}

func TestOverpassUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	endpoint := srv.URL
	srv.Close() // nothing listens there any more
	_, err := poi.NewOverpass(endpoint).Candidates(context.Background(), end, 5, nil, nil)
	var up *poi.UpstreamError
	require.ErrorAs(t, err, &up)
	require.Zero(t, up.StatusCode)
	require.NotContains(t, err.Error(), endpoint)
}

func TestOverpassDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := poi.NewOverpass(srv.URL).Candidates(ctx, end, 5, nil, nil)
	require.ErrorIs(t, err, poi.ErrUpstream)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestOverpassRefusesBeforeAsking(t *testing.T) {
	t.Parallel()
	fake := &fakeOverpass{}
	o := poi.NewOverpass(fake.server(t, http.StatusOK, `{"elements": []}`).URL)
	_, err := o.Candidates(context.Background(), end, 5, []string{"castle\"];node(1);out;"}, nil)
	require.ErrorIs(t, err, poi.ErrUnknownType)
	_, err = o.Candidates(context.Background(), geo.Point{Lat: 0, Lon: 200}, 5, nil, nil)
	require.Error(t, err)
	require.False(t, errors.Is(err, poi.ErrUpstream))
	require.Empty(t, fake.queries)
}

// TestProviders: both implementations answer through the interface.
func TestProviders(t *testing.T) {
	t.Parallel()
	var _ poi.Provider = poi.NewStore(nil)
	var _ poi.Provider = poi.NewOverpass("http://127.0.0.1:1")
	require.True(t, strings.HasPrefix(poi.DefaultOverpassEndpoint, "https://"))
}
