package planner_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/planner/plannertest"
)

// engines runs f on the embedded SQLite and on a PostgreSQL database of the
// test's own.
func engines(t *testing.T, f func(t *testing.T, a *plannertest.App)) {
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); f(t, plannertest.New(t)) })
	t.Run("postgres+redis", func(t *testing.T) { t.Parallel(); f(t, plannertest.New(t, apptest.Postgres, apptest.Redis)) })
}

// TestBothFacesServeTheSameOperations drives the same operations over HTTP
// and over MCP and checks that they answer the same thing.
func TestBothFacesServeTheSameOperations(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		tok := a.Token(t, "rider@example.com", scopes.TripsRead, scopes.TripsWrite)
		mc := a.MCP(t, tok)

		// Create one trip on each face.
		res := a.Do(t, "POST", "/trips", tok, map[string]any{"sourceUrl": "https://www.strava.com/routes/110", "maxDistancePerDay": 100},
			"Idempotency-Key", "http-create-0000001")
		require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
		httpTrip := res.JSON(t)
		require.Equal(t, "/trips/"+httpTrip["id"].(string), res.Header.Get("Location"))
		require.Equal(t, `"1"`, res.Header.Get("ETag"))
		require.Equal(t, false, httpTrip["isLocked"])
		require.Equal(t, statuses("pending", "pending", "pending"),
			httpTrip["computationStatus"], "a new trip answers its real plan, nothing computed yet")

		tr := apptest.Call(t, mc, "create_trip", map[string]any{"sourceUrl": "https://www.strava.com/routes/120", "maxDistancePerDay": 100})
		require.False(t, tr.IsError, tr.Text)
		mcpTrip := tr.Structured
		require.NotEqual(t, httpTrip["id"], mcpTrip["id"])
		require.EqualValues(t, 1, mcpTrip["version"])

		for _, id := range []any{httpTrip["id"], mcpTrip["id"]} {
			st := a.WaitSettled(t, tok, id.(string))
			require.Equal(t, statuses("done", "done", "done"), st["computationStatus"])
		}

		// Both faces list both trips, newest first, identically.
		httpList := a.Do(t, "GET", "/trips", tok, nil)
		require.Equal(t, http.StatusOK, httpList.Status)
		mcpList := apptest.Call(t, mc, "list_trips", map[string]any{})
		require.False(t, mcpList.IsError, mcpList.Text)
		require.Equal(t, httpList.JSON(t), mcpList.Structured)
		members := mcpList.Structured["member"].([]any)
		require.Len(t, members, 2)
		require.Equal(t, mcpTrip["id"], members[0].(map[string]any)["id"], "newest first")

		// Paging and filters mean the same on both faces (query vs arguments).
		page := a.Do(t, "GET", "/trips?itemsPerPage=1&page=2", tok, nil)
		require.Equal(t, http.StatusOK, page.Status, string(page.Body))
		mcpPage := apptest.Call(t, mc, "list_trips", map[string]any{"itemsPerPage": 1, "page": 2})
		require.Equal(t, page.JSON(t), mcpPage.Structured)
		require.Equal(t, httpTrip["id"], mcpPage.Structured["member"].([]any)[0].(map[string]any)["id"])

		// get_trip reads the same digest on both faces.
		for _, id := range []string{httpTrip["id"].(string), mcpTrip["id"].(string)} {
			d := a.Do(t, "GET", "/trips/"+id+"/detail", tok, nil)
			require.Equal(t, http.StatusOK, d.Status)
			md := apptest.Call(t, mc, "get_trip", map[string]any{"id": id})
			require.False(t, md.IsError, md.Text)
			require.Equal(t, d.JSON(t), md.Structured)
			require.Equal(t, false, md.Structured["partial"])
			require.EqualValues(t, 100, md.Structured["settings"].(map[string]any)["maxDistancePerDay"])
			require.NotEmpty(t, md.Structured["days"], "the days are computed")
		}

		// The canonical address answers JSON with true values.
		st := a.Do(t, "GET", "/trips/"+mcpTrip["id"].(string), tok, nil)
		require.Equal(t, http.StatusOK, st.Status)
		require.Regexp(t, `^"1-[0-9a-z]+"$`, st.Header.Get("ETag"), "a read's tag: its version, then its answer's hash")
		body := st.JSON(t)
		require.Equal(t, mcpTrip["id"], body["id"])
		require.Equal(t, false, body["isLocked"])
		require.Contains(t, body, "computationStatus")
	})
}

// TestBadInputIsNamedAndNothingIsWritten checks that both faces refuse a
// bad creation naming the field, and that nothing is stored.
func TestBadInputIsNamedAndNothingIsWritten(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	tests := []struct {
		name  string
		give  map[string]any
		field string
	}{
		{"unpublished server field", map[string]any{"sourceUrl": "https://www.strava.com/routes/110", "status": "ready"}, "status"},
		{"unpublished version", map[string]any{"sourceUrl": "https://www.strava.com/routes/110", "version": 7}, "version"},
		{"missing source", map[string]any{"maxDistancePerDay": 100}, "sourceUrl"},
		{"source not https", map[string]any{"sourceUrl": "http://www.komoot.com/tour/1"}, "sourceUrl"},
		{"out of range", map[string]any{"sourceUrl": "https://www.strava.com/routes/110", "fatigueFactor": 2.0}, "fatigueFactor"},
		{"wrong type", map[string]any{"sourceUrl": "https://www.strava.com/routes/110", "departureHour": "eight"}, "departureHour"},
		{"end before start", map[string]any{"sourceUrl": "https://www.strava.com/routes/110", "startDate": "2030-05-02", "endDate": "2030-05-01"}, "endDate"},
	}
	for i, tt := range tests {
		// One user per case: refused creations count against the creation limit too.
		tok := a.Token(t, fmt.Sprintf("rider%d@example.com", i), scopes.TripsRead, scopes.TripsWrite)
		mc := a.MCP(t, tok)
		res := a.Do(t, "POST", "/trips", tok, tt.give, "Idempotency-Key", strings.Repeat("k", 16)+string(rune('a'+i)))
		require.Equal(t, http.StatusUnprocessableEntity, res.Status, "%s: %s", tt.name, res.Body)
		require.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))
		require.Contains(t, fields(res.JSON(t)), tt.field, tt.name)

		tr := apptest.Call(t, mc, "create_trip", tt.give)
		require.True(t, tr.IsError, tt.name)
		require.Contains(t, fields(tr.Structured), tt.field, tt.name)
		require.Contains(t, tr.Text, tt.field, "the text a model reads names the field")
		require.Equal(t, res.JSON(t)["type"], tr.Structured["type"], tt.name)

		list := a.Do(t, "GET", "/trips", tok, nil).JSON(t)
		require.EqualValues(t, 0, list["totalItems"], "%s: nothing was written", tt.name)
	}
}

// fields lists the fields a problem body names, in order.
func fields(problem map[string]any) []string {
	var out []string
	vs, _ := problem["violations"].([]any)
	for _, v := range vs {
		if m, ok := v.(map[string]any); ok {
			out = append(out, fmt.Sprint(m["field"]))
		}
	}
	return out
}

func TestInfrastructureEndpoints(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	tests := []struct {
		path string
		want int
		has  string
	}{
		{"/health", http.StatusOK, `"ok"`},
		{"/health/ready", http.StatusOK, `"database":"ok"`},
		{"/openapi.json", http.StatusOK, `"openapi":"3.1`},
		{"/openapi.yaml", http.StatusOK, "openapi: 3.1"},
		{"/docs", http.StatusOK, `/docs/redoc.standalone.js`},
		{"/docs/redoc.standalone.js", http.StatusOK, "redoc"},
	}
	for _, tt := range tests {
		res := a.Do(t, "GET", tt.path, "", nil)
		require.Equal(t, tt.want, res.Status, tt.path)
		require.Contains(t, string(res.Body), tt.has, tt.path)
	}
	docs := a.Do(t, "GET", "/docs", "", nil)
	require.NotContains(t, string(docs.Body), "https://", "the reference page loads nothing from elsewhere")
}

func TestMCPWithoutTokenIsRefusedLikeHTTP(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	// One request id on both, so the bodies can be compared whole.
	httpRes := a.Do(t, "GET", "/trips", "", nil, "X-Request-Id", "same-request-id")
	mcpRes := a.Do(t, "POST", "/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "X-Request-Id", "same-request-id")
	require.Equal(t, http.StatusUnauthorized, httpRes.Status)
	require.Equal(t, http.StatusUnauthorized, mcpRes.Status)
	require.Equal(t, httpRes.JSON(t), mcpRes.JSON(t))
	require.Contains(t, mcpRes.Header.Get("WWW-Authenticate"), "Bearer")

	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	_, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: a.URL + "/mcp"}, nil)
	require.Error(t, err, "an MCP client without a token cannot start a session")
}

// TestOpenAPIListsNoUnusedComponent: every schema in the document's
// components is referred to somewhere (redocly's no-unused-components).
func TestOpenAPIListsNoUnusedComponent(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	res := a.Do(t, "GET", "/openapi.json", "", nil)
	doc := res.JSON(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	body := string(res.Body)
	for name := range schemas {
		require.Contains(t, body, `"$ref":"#/components/schemas/`+name+`"`, "component %s is never used", name)
	}
}
