package planner_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/planner/plannertest"
)

// status sets the trip's computation statuses as the pipeline would while
// it works, so the refusals of work under way can be asked for at will. It
// moves the trip's revision on as every write of the store does: a read
// remembers a trip's digest until its revision moves.
func status(t *testing.T, a *plannertest.App, id, statuses string) {
	t.Helper()
	_, err := a.DB.NewUpdate().Table("trips").Set("computation_status = ?", statuses).
		Set("revision = revision + 1").Where("id = ?", id).Exec(context.Background())
	require.NoError(t, err)
}

// TestHandlerRefusalsSpeakTheirFace: the refusals a handler words itself
// (an analysis under way, days not computed yet, an unknown day) say what
// comes next as an HTTP request on HTTP and as a tool on MCP: an HTTP body
// names no tool (apptest.App.Do checks every problem body for it too).
func TestHandlerRefusalsSpeakTheirFace(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id := e.trip(t, map[string]any{"startDate": day(30), "endDate": day(32)})
	a.WaitSettled(t, e.token, id)
	const unknownDay = "0190a8b0-0000-7000-8000-000000000000"

	for _, tt := range []struct {
		name, statuses string
		method, path   string
		body           map[string]any
		tool           string
		args           map[string]any
		status         int
		says           string // what the HTTP detail names as the next request
	}{
		{"an analysis under way", statusJSON("done", "done", "done", "terrain", "running"),
			"POST", "/analyze", map[string]any{}, "analyze_trip", map[string]any{}, http.StatusConflict, "GET /trips/"},
		{"nothing to analyze yet", statusJSON("done", "pending", "pending"),
			"POST", "/analyze", map[string]any{}, "analyze_trip", map[string]any{}, http.StatusUnprocessableEntity, "GET /trips/"},
		{"nothing to recompute yet", statusJSON("done", "pending", "pending"),
			"POST", "/recompute", map[string]any{"modifications": []any{map[string]any{"type": "pacing"}}}, "", nil, http.StatusUnprocessableEntity, "GET /trips/"},
		{"nothing to scan yet", statusJSON("done", "pending", "pending"),
			"POST", "/accommodations/scan", map[string]any{}, "", nil, http.StatusUnprocessableEntity, "GET /trips/"},
		{"an unknown day", statusJSON("done", "done", "done"),
			"GET", "/stages/" + unknownDay + "/detail", nil, "get_stage", map[string]any{"stageId": unknownDay}, http.StatusNotFound, "GET /trips/"},
	} {
		status(t, a, id, tt.statuses)
		res := a.Do(t, tt.method, "/trips/"+id+tt.path, e.token, tt.body)
		require.Equal(t, tt.status, res.Status, "%s: %s", tt.name, res.Body)
		require.NotContains(t, string(res.Body), "get_trip", tt.name)
		require.NotContains(t, string(res.Body), "get_stage", tt.name)
		require.Contains(t, string(res.Body), tt.says, "%s: HTTP names the request that comes next", tt.name)
		if tt.tool == "" {
			continue
		}
		tt.args["id"] = id
		got := apptest.Call(t, e.mcp, tt.tool, tt.args)
		require.True(t, got.IsError, "%s: %s", tt.name, got.Text)
		require.Contains(t, got.Text, "get_trip", "%s: MCP names the tool that comes next", tt.name)
	}
}

// TestSharingASharedTripNamesItsAddress: sharing a trip that is shared
// already keeps its link (its recipients hold it) and the refusal gives
// the address, so no one revokes a link to learn it; each face names what
// reads the share in its own words.
func TestSharingASharedTripNamesItsAddress(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id := e.trip(t, map[string]any{"startDate": day(30), "endDate": day(32)})
	created := a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil)
	require.Equal(t, http.StatusCreated, created.Status, string(created.Body))
	address := created.JSON(t)["url"].(string)

	again := a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil)
	require.Equal(t, http.StatusConflict, again.Status, string(again.Body))
	body := again.JSON(t)
	require.Equal(t, "share_exists", body["code"])
	require.Contains(t, body["detail"], address, "the refusal gives the active address")
	require.Contains(t, body["detail"], "GET /trips/{id}/share", "and the request that reads it")
	require.NotContains(t, body["detail"], "unshare it first")

	got := apptest.Call(t, e.mcp, "share_trip", map[string]any{"id": id})
	require.True(t, got.IsError, got.Text)
	require.Contains(t, got.Text, address)
	require.NotContains(t, got.Text, "unshare it first")
	require.Equal(t, address, a.Do(t, "GET", "/trips/"+id+"/share", e.token, nil).JSON(t)["url"], "the link still works")
}

// TestAPartialTripSaysHowLongToWait: while the days are computed, get_trip
// says how many seconds to wait before reading again, in a field and in
// its note, on both faces.
func TestAPartialTripSaysHowLongToWait(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id := e.trip(t, map[string]any{"startDate": day(30), "endDate": day(32)})
	a.WaitSettled(t, e.token, id)
	status(t, a, id, statusJSON("done", "running", "pending"))

	res := a.Do(t, "GET", "/trips/"+id+"/detail", e.token, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	got := apptest.Call(t, e.mcp, "get_trip", map[string]any{"id": id})
	require.False(t, got.IsError, got.Text)
	for face, body := range map[string]map[string]any{"HTTP": res.JSON(t), "MCP": got.Structured} {
		require.Equal(t, true, body["partial"], face)
		wait, ok := body["retryAfter"].(float64)
		require.True(t, ok, "%s: retryAfter is given: %v", face, body)
		require.Positive(t, wait, face)
		require.Contains(t, body["note"], fmt.Sprintf("%d seconds", int(wait)), "%s: the note says it too", face)
	}

	status(t, a, id, statusJSON("done", "done", "done"))
	settledBody := a.Do(t, "GET", "/trips/"+id+"/detail", e.token, nil).JSON(t)
	require.NotContains(t, settledBody, "retryAfter", "nothing to wait for once the days are computed")
}
