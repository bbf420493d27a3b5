package places_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/places"
)

func TestGazetteerReverse(t *testing.T) {
	t.Parallel()
	g := places.NewGazetteer([]places.Row{
		{Name: "Lyon", Country: "FR", Admin1: "Auvergne-Rhône-Alpes", Lat: 45.75, Lon: 4.85, Population: 500_000},
		{Name: "Villeurbanne", Country: "FR", Lat: 45.7667, Lon: 4.8803, Population: 150_000},
		{Name: "Nantua", Country: "FR", Lat: 46.15, Lon: 5.61, Population: 3_500},
	})
	tests := []struct {
		name     string
		lat, lon float64
		want     []string
		err      error
	}{
		{"the nearest place", 45.752, 4.846, []string{"Lyon"}, nil},
		{"the nearest, not the largest", 45.768, 4.879, []string{"Villeurbanne"}, nil},
		{"a village of its own", 46.16, 5.60, []string{"Nantua"}, nil},
		{"nothing within 50 km", 45.0, 8.0, []string{}, nil},
		{"latitude out of range", 91, 4.8, nil, places.ErrBadPosition},
		{"longitude out of range", 45, -181, nil, places.ErrBadPosition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := g.Reverse(context.Background(), tt.lat, tt.lon)
			if tt.err != nil {
				require.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			names := []string{}
			for _, p := range got {
				names = append(names, p.Name)
			}
			require.Equal(t, tt.want, names)
		})
	}
}

// TestEmbeddedReverse names a position of the shipped gazetteer offline.
func TestEmbeddedReverse(t *testing.T) {
	t.Parallel()
	got, err := places.Embedded().Reverse(context.Background(), 47.2378, 6.0241) // Besançon's centre
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "Besançon", got[0].Name)
	require.Equal(t, "FR", got[0].Country)

	none, err := places.Embedded().Reverse(context.Background(), 30, -40) // the middle of the Atlantic
	require.NoError(t, err)
	require.Empty(t, none)
}

// reverseUpstream answers /reverse in Nominatim's format=jsonv2 shape.
type reverseUpstream struct {
	mu       sync.Mutex
	calls    int
	status   int
	body     string
	lastPath string
}

func (u *reverseUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.calls++
	u.lastPath = r.URL.Path
	status, body := u.status, u.body
	u.mu.Unlock()
	if r.URL.Path != "/reverse" || r.URL.Query().Get("lat") == "" || r.URL.Query().Get("lon") == "" {
		http.NotFound(w, r)
		return
	}
	if status != 0 {
		http.Error(w, "down", status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, body)
}

func TestNominatimReverse(t *testing.T) {
	t.Parallel()
	const town = `{"lat":"46.1501","lon":"5.6102","name":"Rue du Collège","display_name":"Rue du Collège, Nantua, Ain, France",
		"addresstype":"road","type":"residential",
		"address":{"road":"Rue du Collège","town":"Nantua","municipality":"Nantua","country_code":"fr"}}`
	const hamlet = `{"lat":"45.9","lon":"6.1","name":"","display_name":"Les Granges, Haute-Savoie, France",
		"address":{"hamlet":"Les Granges","municipality":"Thônes","country_code":"fr"}}`
	tests := []struct {
		name     string
		status   int
		body     string
		want     []string
		wantType string
		upstream bool
	}{
		{"named after its town, not its road", 0, town, []string{"Nantua"}, places.TypeTown, false},
		{"a hamlet before its municipality", 0, hamlet, []string{"Les Granges"}, places.TypeVillage, false},
		{"nothing there is no result", 0, `{"error":"Unable to geocode"}`, []string{}, "", false},
		{"a provider down", http.StatusBadGateway, "", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			up := &reverseUpstream{status: tt.status, body: tt.body}
			srv := httptest.NewServer(up)
			t.Cleanup(srv.Close)
			n, err := places.NewNominatim(places.NominatimConfig{BaseURL: srv.URL, Client: srv.Client(),
				Throttle: places.NewThrottle(time.Millisecond, time.Now, func(context.Context, time.Duration) error { return nil })})
			require.NoError(t, err)
			got, err := n.Reverse(context.Background(), 46.15, 5.61)
			if tt.upstream {
				var ue *places.UpstreamError
				require.True(t, errors.As(err, &ue), "%v", err)
				return
			}
			require.NoError(t, err)
			names := []string{}
			for _, p := range got {
				names = append(names, p.Name)
			}
			require.Equal(t, tt.want, names)
			if len(got) > 0 {
				require.Equal(t, tt.wantType, got[0].Type)
				require.Equal(t, "FR", got[0].Country)
			}
			_, err = n.Reverse(context.Background(), 46.15, 5.61)
			require.NoError(t, err)
			require.Equal(t, 1, up.calls, "the second answer comes from the cache")
			require.Equal(t, "/reverse", up.lastPath)
		})
	}
}
