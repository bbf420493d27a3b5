package planner_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/registry"
)

// unlocated are the 202 answers that point at nothing, on purpose, and why.
// None today: the neutral answers of the human door (sign-in link, access
// request, email change) answer 200, their mail sent before the answer.
var unlocated = map[string]string{}

// TestEveryCreationAndAcceptanceIsLocated walks the registry: an operation
// answering 201 or 202 must answer where its resource is (Location), so
// its output must have an address, unless it is one of unlocated.
func TestEveryCreationAndAcceptanceIsLocated(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load("", nil, planner.Keys()...)
	require.NoError(t, err)
	reg, err := app.Registry(planner.Product(), cfg)
	require.NoError(t, err)
	n := 0
	for _, op := range reg.Operations() {
		if op.HTTP.Status != http.StatusCreated && op.HTTP.Status != http.StatusAccepted {
			continue
		}
		n++
		if _, ok := unlocated[op.OutputType.String()]; ok {
			continue
		}
		if !op.OutputType.Implements(reflect.TypeFor[registry.Located]()) {
			t.Errorf("%s answers %d without a Location: its output %s must implement registry.Located (scope %s)", op.ID, op.HTTP.Status, op.OutputType, op.Scope)
		}
	}
	require.Positive(t, n, "the walk saw the creations")
}

// TestLocationIsAbsoluteUnderThePublicURL: with public_url set, a
// Location leaves as an absolute address under it. The server is called
// through its handler: the public address resolves nowhere here.
func TestLocationIsAbsoluteUnderThePublicURL(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t, func(_ testing.TB, c *config.Config) { c.PublicURL = "https://cairn.example/" })
	tok := a.Token(t, "located@example.com", scopes.TripsRead, scopes.TripsWrite)
	post := func(path string, body string, headers ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "https://cairn.example"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		rec := httptest.NewRecorder()
		a.Server.Handler.ServeHTTP(rec, req)
		return rec
	}
	res := post("/trips", `{"sourceUrl":"`+plannertest.StravaRoute(120)+`"}`, operations.HeaderIdempotencyKey, key())
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	var created map[string]any
	require.NoError(t, json.Unmarshal(res.Body.Bytes(), &created))
	require.Equal(t, "https://cairn.example/trips/"+created["id"].(string), res.Header().Get("Location"))

	share := post("/trips/"+created["id"].(string)+"/share", "")
	require.Equal(t, http.StatusCreated, share.Code, share.Body.String())
	require.Regexp(t, `^https://cairn\.example/`, share.Header().Get("Location"), "the share's 201 is located too")
}

// TestLocationsPointAtWhatWasMade: each 201 and 202 of the trips and the
// account names an address that answers its owner.
func TestLocationsPointAtWhatWasMade(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, _, _ := e.days(t, 120, nil)
	for _, tt := range []struct {
		name string
		res  *apptest.Response
	}{
		{"a copy", e.duplicate(t, id, key(), nil)},
		{"a share", a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil)},
		{"a recomputation", a.Do(t, "POST", "/trips/"+id+"/recompute", e.token, map[string]any{"modifications": []any{map[string]any{"type": "pacing"}}})},
		{"a scan", a.Do(t, "POST", "/trips/"+id+"/accommodations/scan", e.token, map[string]any{})},
		{"a device", a.Do(t, "POST", "/users/me/device-tokens", e.token, map[string]any{"token": "phone-located", "platform": "ios"})},
	} {
		require.Contains(t, []int{http.StatusCreated, http.StatusAccepted}, tt.res.Status, "%s: %s", tt.name, tt.res.Body)
		loc := tt.res.Header.Get("Location")
		require.NotEmpty(t, loc, tt.name)
		method := "GET"
		if tt.name == "a device" {
			method = "DELETE" // its address is where it is unregistered
		}
		got := a.Do(t, method, loc, e.token, nil)
		require.Less(t, got.Status, 300, "%s: %s %s answers %d", tt.name, method, loc, got.Status)
	}
}
