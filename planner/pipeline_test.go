package planner_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/routefixture"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
)

// sse reads server-sent events from the trip's stream until stop says so.
func sse(t *testing.T, a *plannertest.App, token, id string, stop func(event, data string) bool) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.URL+"/trips/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	var seen []string
	sc := bufio.NewScanner(res.Body)
	var event string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			seen = append(seen, event)
			if stop(event, strings.TrimPrefix(line, "data: ")) {
				return seen
			}
		}
	}
	t.Fatalf("stream ended before the expected event; saw %v (%v)", seen, sc.Err())
	return nil
}

// TestImportToDays: a trip created from a local source goes pending →
// running → done, watched over the event stream and over get_trip, and its
// days are the ones the pacing table predicts (scenario 29).
func TestImportToDays(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		res := a.Do(t, "POST", "/trips", e.token, map[string]any{
			"sourceUrl": plannertest.StravaRoute(300), "startDate": day(20), "endDate": day(22), "maxDistancePerDay": 300,
		}, operations.HeaderIdempotencyKey, key())
		require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
		id := res.JSON(t)["id"].(string)

		var first string
		events := sse(t, a, e.token, id, func(event, data string) bool {
			if first == "" {
				first = data
			}
			return event == "trip_complete"
		})
		require.Equal(t, "status", events[0], "the stream opens with the current statuses")
		require.Contains(t, first, `"pending"`, "pending first")
		require.Contains(t, events, "computation_running", "then running")
		require.Contains(t, events, "route_parsed")
		require.Contains(t, events, "stages_computed")

		got := apptest.Call(t, e.mcp, "get_trip", map[string]any{"id": id})
		require.False(t, got.IsError, got.Text)
		require.Equal(t, false, got.Structured["partial"])
		require.Equal(t, statuses("done", "done", "done"), got.Structured["computationStatus"])
		require.Equal(t, "ready", got.Structured["status"])
		days := got.Structured["days"].([]any)
		require.Len(t, days, 3)
		want := []float64{110.7, 99.6, 89.7}
		total := 0.0
		for i, d := range days {
			km := d.(map[string]any)["distance"].(float64)
			total += km
			// Each day ends at the first kept point reaching its target (kept
			// every 500 m), so it may run up to half a kilometre long; the
			// last day takes what remains.
			slack := 0.6
			if i == len(days)-1 {
				slack = 1.2
			}
			require.InDelta(t, want[i], km, slack, "day %d", i+1)
			require.Contains(t, d.(map[string]any), "alerts", "terrain ran")
		}
		require.InDelta(t, 300, total, 0.2, "the days cover the route")
		require.Equal(t, "Test route 300", got.Structured["settings"].(map[string]any)["title"], "the source's name becomes the title")
	})
}

// TestAFailedImportSettlesEverything: a removed route fails the import and
// everything that depends on it; nothing stays pending.
func TestAFailedImportSettlesEverything(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	calls := a.Provider.Calls.Load()
	res := a.Do(t, "POST", "/trips", e.token, map[string]any{"sourceUrl": plannertest.StravaRoute(404)}, operations.HeaderIdempotencyKey, key())
	require.Equal(t, http.StatusAccepted, res.Status)
	id := res.JSON(t)["id"].(string)
	st := a.WaitSettled(t, e.token, id)
	require.Equal(t, statuses("failed", "failed", "failed"), st["computationStatus"])
	got := apptest.Call(t, e.mcp, "get_trip", map[string]any{"id": id})
	require.Equal(t, false, got.Structured["partial"], "a failed import is settled, not partial")
	require.NotContains(t, got.Structured, "days")
	require.Equal(t, "route_not_found", got.Structured["failure"], "the failure is named")
	require.Contains(t, got.Structured["note"], "not found at its provider")
	require.EqualValues(t, 1, a.Provider.Calls.Load()-calls, "a removed route is asked for once: retrying cannot bring it back")
}

// TestARefusedRedirectIsNotRetried: a redirect to another port of the
// provider's host is refused, once: the import fails for good, after one
// request, and the other port is never reached.
func TestARefusedRedirectIsNotRetried(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	calls := a.Provider.Calls.Load()
	res := a.Do(t, "POST", "/trips", e.token, map[string]any{"sourceUrl": plannertest.StravaRoute(307)}, operations.HeaderIdempotencyKey, key())
	require.Equal(t, http.StatusAccepted, res.Status)
	st := a.WaitSettled(t, e.token, res.JSON(t)["id"].(string))
	require.Equal(t, "failed", st["computationStatus"].(map[string]any)["route"])
	require.Equal(t, "route_refused", a.Do(t, "GET", "/trips/"+res.JSON(t)["id"].(string)+"/detail", e.token, nil).JSON(t)["failure"])
	require.EqualValues(t, 1, a.Provider.Calls.Load()-calls, "one request: a refused redirect is permanent")
	require.Zero(t, a.Provider.ElsewhereCalls.Load(), "the other port is never reached")
}

// TestANewGenerationSupersedesOlderWork: a settings change while the import
// is still retrying supersedes it; the old work never writes.
func TestANewGenerationSupersedesOlderWork(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	res := a.Do(t, "POST", "/trips", e.token, map[string]any{"sourceUrl": plannertest.StravaRoute(503)}, operations.HeaderIdempotencyKey, key())
	id := res.JSON(t)["id"].(string)

	patch := map[string]any{"sourceUrl": plannertest.StravaRoute(120)}
	ask := a.Do(t, "PATCH", "/trips/"+id, e.token, patch, "If-Match", `"1"`)
	require.Equal(t, http.StatusConflict, ask.Status)
	done := a.Do(t, "PATCH", "/trips/"+id, e.token, patch, "If-Match", `"1"`,
		operations.HeaderConfirmationToken, ask.Header.Get(operations.HeaderConfirmationToken))
	require.Equal(t, http.StatusAccepted, done.Status, string(done.Body))
	require.Equal(t, "pending", done.JSON(t)["computationStatus"].(map[string]any)["route"])

	st := a.WaitSettled(t, e.token, id)
	require.Equal(t, statuses("done", "done", "done"), st["computationStatus"])

	var rows []struct {
		Name       string `bun:"name"`
		Generation int64  `bun:"generation"`
		Status     string `bun:"status"`
	}
	require.NoError(t, a.DB.NewSelect().Table("computations").Column("name", "generation", "status").
		Where("trip_id = ?", id).Order("generation", "name").Scan(context.Background(), &rows))
	gens := map[int64]int{}
	for _, r := range rows {
		gens[r.Generation]++
		if r.Generation == 1 {
			require.Equal(t, "superseded", r.Status, "%s of the first generation", r.Name)
		} else {
			require.Equal(t, "done", r.Status, r.Name)
		}
	}
	require.NotZero(t, gens[1], "the first generation is in the history")
	require.NotZero(t, gens[2], "so is the second")
}

// TestUpload: parse and pacing are synchronous, enrichments follow; hostile
// files are refused with the reason and nothing is created.
func TestUpload(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	op, ok := a.Server.Registry.Lookup("trips.upload")
	require.True(t, ok)
	gpxOf := func(km int) []byte {
		var b bytes.Buffer
		require.NoError(t, export.WriteGPX(&b, export.Track{Name: "Long ride", Points: plannertest.Line(km)}))
		return b.Bytes()
	}
	long := routefixture.LongGPX()

	tests := []struct {
		name  string
		file  apptest.File
		want  int
		field string
	}{
		{"doctype", apptest.File{Name: "bomb.gpx", ContentType: "application/gpx+xml", Body: routefixture.DoctypeBomb()}, http.StatusUnprocessableEntity, "gpxFile"},
		{"no track point", apptest.File{Name: "empty.gpx", ContentType: "application/gpx+xml", Body: routefixture.NoTrackPoints()}, http.StatusUnprocessableEntity, "gpxFile"},
		{"truncated", apptest.File{Name: "cut.gpx", ContentType: "application/gpx+xml", Body: routefixture.Truncated()}, http.StatusUnprocessableEntity, "gpxFile"},
		{"not GPX", apptest.File{Name: "notes.gpx", ContentType: "text/plain", Body: routefixture.NotGPX()}, http.StatusUnprocessableEntity, "gpxFile"},
		{"wrong extension", apptest.File{Name: "route.txt", ContentType: "text/plain", Body: gpxOf(120)}, http.StatusBadRequest, ""},
		{"wrong type", apptest.File{Name: "route.gpx", ContentType: "image/png", Body: gpxOf(120)}, http.StatusBadRequest, ""},
		{"empty file", apptest.File{Name: "route.gpx", ContentType: "application/gpx+xml"}, http.StatusBadRequest, ""},
		{"long route", apptest.File{Name: "long.gpx", ContentType: "application/gpx+xml", Body: long}, http.StatusAccepted, ""},
	}
	for _, tt := range tests {
		e := newEnv(t, a)
		out := a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Key: key(), Files: map[string]apptest.File{"gpxFile": tt.file}})
		require.Equal(t, tt.want, out.Status, "%s: %s", tt.name, out.Raw)
		list := a.Do(t, "GET", "/trips", e.token, nil).JSON(t)
		if tt.want != http.StatusAccepted {
			require.EqualValues(t, 0, list["totalItems"], "%s: nothing created", tt.name)
			if tt.field != "" {
				require.Contains(t, fields(out.Body), tt.field, tt.name)
			}
			continue
		}
		require.EqualValues(t, 1, list["totalItems"])
		require.Equal(t, "ready", out.Body["status"])
		require.Greater(t, len(out.Body["days"].([]any)), 20, "a 2,000 km route is more than 20 days")
		cs := out.Body["computationStatus"].(map[string]any)
		require.Equal(t, "done", cs["route"])
		require.Equal(t, "done", cs["stages"])
		id := out.Body["id"].(string)
		require.Equal(t, "/trips/"+id, out.Header.Get("Location"))
		st := a.WaitSettled(t, e.token, id)
		require.Equal(t, "done", st["computationStatus"].(map[string]any)["terrain"])
		require.Equal(t, http.StatusOK, a.Do(t, "GET", "/trips/"+id+"/detail", e.token, nil).Status, "the uploader owns the trip")
	}
}

// TestListFilters: a title filter matches a substring, case-insensitively,
// and % or _ in it match themselves only.
func TestListFilters(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id := e.trip(t, nil)
	a.WaitSettled(t, e.token, id) // the title comes from the source
	tests := []struct {
		give string
		want float64
	}{{"TEST ROUTE", 1}, {"route 12", 1}, {"%", 0}, {"test_route", 0}, {"nowhere", 0}}
	for _, tt := range tests {
		got := a.Do(t, "GET", "/trips?title="+url.QueryEscape(tt.give), e.token, nil).JSON(t)
		require.Equal(t, tt.want, got["totalItems"], tt.give)
	}
}
