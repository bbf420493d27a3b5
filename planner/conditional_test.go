package planner_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/routefixture"
	"cairn.dev/cairn/planner/plannertest"
)

// TestConditionalRequests: a read answers 304 to If-None-Match naming its
// current ETag; If-Match compares strongly (a weak tag is 412 whatever it
// names), and If-Match: * is any current version, never 412.
func TestConditionalRequests(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	op, _ := a.Server.Registry.Lookup("trips.upload")
	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: "Three days", Points: routefixture.Route(3, 2_400, 10)}))
	out := a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token,
		Args:  map[string]any{"startDate": day(10), "endDate": day(12)},
		Files: map[string]apptest.File{"gpxFile": {Name: "short.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}})
	require.Equal(t, http.StatusAccepted, out.Status, string(out.Raw))
	id := out.Body["id"].(string)
	a.WaitSettled(t, e.token, id)

	read := a.Do(t, http.MethodGet, "/trips/"+id+"/detail", e.token, nil)
	require.Equal(t, http.StatusOK, read.Status, string(read.Body))
	etag := read.Header.Get("ETag")
	require.NotEmpty(t, etag)
	stage := read.JSON(t)["days"].([]any)[0].(map[string]any)["id"].(string)

	same := a.Do(t, http.MethodGet, "/trips/"+id+"/detail", e.token, nil, "If-None-Match", etag)
	require.Equal(t, http.StatusNotModified, same.Status)
	require.Empty(t, same.Body)
	require.Equal(t, etag, same.Header.Get("ETag"))
	weakSame := a.Do(t, http.MethodGet, "/trips/"+id+"/detail", e.token, nil, "If-None-Match", `"999", W/`+etag)
	require.Equal(t, http.StatusNotModified, weakSame.Status, "If-None-Match compares weakly")
	stale := a.Do(t, http.MethodGet, "/trips/"+id+"/detail", e.token, nil, "If-None-Match", `"999"`)
	require.Equal(t, http.StatusOK, stale.Status)

	path := "/trips/" + id + "/stages/" + stage
	weak := a.Do(t, http.MethodPatch, path, e.token, map[string]any{"label": "weak"}, "If-Match", "W/"+etag)
	require.Equal(t, http.StatusPreconditionFailed, weak.Status, "a weak tag never matches: %s", weak.Body)

	anyVersion := a.Do(t, http.MethodPatch, path, e.token, map[string]any{"label": "any"}, "If-Match", "*")
	require.Less(t, anyVersion.Status, 300, "If-Match: * is any current version: %s", anyVersion.Body)
	require.NotEqual(t, etag, anyVersion.Header.Get("ETag"), "the write made a new version")
}

// TestEachFaceWordsWhatComesNext: an HTTP answer says what to request
// next and never names a tool; the MCP answer names the tool.
func TestEachFaceWordsWhatComesNext(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	give := map[string]any{"sourceUrl": "https://www.strava.com/routes/110"}
	res := a.Do(t, http.MethodPost, "/trips", e.token, give, "Idempotency-Key", key())
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	next, _ := res.JSON(t)["next"].(string)
	require.NotEmpty(t, next)
	require.NotContains(t, next, "get_trip", "an HTTP body names no tool")
	require.Contains(t, next, "GET /trips/")

	got := apptest.Call(t, e.mcp, "create_trip", map[string]any{"sourceUrl": "https://www.strava.com/routes/111"})
	require.False(t, got.IsError, got.Text)
	require.Contains(t, got.Structured["next"], "get_trip")
}
