package planner_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/routefixture"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/registry"
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
	out := a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Key: key(),
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

// TestLongValuesAreNotQuotedBack: a 1,500-character address is refused on
// both faces without more than 64 characters of it coming back.
func TestLongValuesAreNotQuotedBack(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	tail := strings.Repeat("a", 1500)
	long := "http://www.komoot.com/tour/" + tail // not https: refused
	cut := strings.Repeat("a", registry.MaxQuote+1)

	res := a.Do(t, http.MethodPost, "/trips", e.token, map[string]any{"sourceUrl": long}, "Idempotency-Key", key())
	require.Equal(t, http.StatusUnprocessableEntity, res.Status, string(res.Body))
	require.NotContains(t, string(res.Body), cut, "HTTP: %d bytes", len(res.Body))

	got := apptest.Call(t, e.mcp, "create_trip", map[string]any{"sourceUrl": long})
	require.True(t, got.IsError, got.Text)
	require.NotContains(t, got.Text, cut)
	raw, err := json.Marshal(got.Structured)
	require.NoError(t, err)
	require.NotContains(t, string(raw), cut)

	// A format check quotes the value (and its parse error again).
	made := a.Do(t, http.MethodPost, "/trips", e.token, map[string]any{"sourceUrl": "https://www.strava.com/routes/110"}, "Idempotency-Key", key())
	require.Equal(t, http.StatusAccepted, made.Status, string(made.Body))
	bad := "https://exa mple.com/" + tail
	man := a.Do(t, http.MethodPost, "/trips/"+made.JSON(t)["id"].(string)+"/stages/y/accommodations/manual", e.token,
		map[string]any{"name": "Hut", "address": "Town", "url": bad}, "If-Match", `"1"`)
	require.Equal(t, http.StatusUnprocessableEntity, man.Status, string(man.Body))
	require.NotContains(t, string(man.Body), cut, "HTTP: %d bytes", len(man.Body))
}

// TestAReadThatChangedIsNeverNotModified: sharing a trip leaves its
// version alone but changes what its read says (shared, shareUrl), so the
// ETag a client held before must not answer 304 after; nor may a partial
// read's tag once the days are computed.
func TestAReadThatChangedIsNeverNotModified(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id := e.trip(t, nil)
	a.WaitSettled(t, e.token, id)

	before := a.Do(t, http.MethodGet, "/trips/"+id+"/detail", e.token, nil)
	require.Equal(t, http.StatusOK, before.Status, string(before.Body))
	etag := before.Header.Get("ETag")
	require.Equal(t, false, before.JSON(t)["shared"])

	shared := a.Do(t, http.MethodPost, "/trips/"+id+"/share", e.token, nil)
	require.Equal(t, http.StatusCreated, shared.Status, string(shared.Body))

	after := a.Do(t, http.MethodGet, "/trips/"+id+"/detail", e.token, nil, "If-None-Match", etag)
	require.Equal(t, http.StatusOK, after.Status, "the read changed: a 304 would keep the client on the old one")
	require.Equal(t, true, after.JSON(t)["shared"])
	require.NotEqual(t, etag, after.Header.Get("ETag"))

	// The new tag still names the version for a write.
	again := a.Do(t, http.MethodGet, "/trips/"+id+"/detail", e.token, nil, "If-None-Match", after.Header.Get("ETag"))
	require.Equal(t, http.StatusNotModified, again.Status)
	stage := after.JSON(t)["days"].([]any)[0].(map[string]any)["id"].(string)
	write := a.Do(t, http.MethodPatch, "/trips/"+id+"/stages/"+stage, e.token, map[string]any{"label": "by the read's tag"},
		"If-Match", after.Header.Get("ETag"))
	require.Less(t, write.Status, 300, "a read's ETag is accepted as If-Match: %s", write.Body)
}
