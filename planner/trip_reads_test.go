package planner_test

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
)

// faces reads get_trip of trip id on both faces: GET /trips/{id}/detail
// and the get_trip tool's structured content.
func (e env) faces(t *testing.T, id string) map[string]map[string]any {
	t.Helper()
	res := e.a.Do(t, "GET", "/trips/"+id+"/detail", e.token, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	got := apptest.Call(t, e.mcp, "get_trip", map[string]any{"id": id})
	require.False(t, got.IsError, got.Text)
	return map[string]map[string]any{"HTTP": res.JSON(t), "MCP": got.Structured}
}

// TestGetTripSaysWhetherAndWhereItIsShared: get_trip says whether the trip
// is shared and gives the active share's absolute address, on both faces;
// once revoked, it is not shared and no address is given.
func TestGetTripSaysWhetherAndWhereItIsShared(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, _, _ := e.days(t, 120, nil)
	for face, body := range e.faces(t, id) {
		require.Equal(t, false, body["shared"], "%s: not shared yet", face)
		require.NotContains(t, body, "shareUrl", face)
	}

	created := a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil)
	require.Equal(t, http.StatusCreated, created.Status, string(created.Body))
	address := created.JSON(t)["url"].(string)
	require.Contains(t, address, "://", "the share address is absolute")
	for face, body := range e.faces(t, id) {
		require.Equal(t, true, body["shared"], face)
		require.Equal(t, address, body["shareUrl"], "%s: the active share's address", face)
	}

	ask := a.Do(t, "DELETE", "/trips/"+id+"/share", e.token, nil)
	require.Equal(t, http.StatusConflict, ask.Status, string(ask.Body))
	revoked := a.Do(t, "DELETE", "/trips/"+id+"/share", e.token, nil,
		operations.HeaderConfirmationToken, ask.Header.Get(operations.HeaderConfirmationToken))
	require.Equal(t, http.StatusNoContent, revoked.Status, string(revoked.Body))
	for face, body := range e.faces(t, id) {
		require.Equal(t, false, body["shared"], "%s: a revoked share is no share", face)
		require.NotContains(t, body, "shareUrl", face)
	}
}

// round5 is a coordinate as the digest gives it: 5 decimals, about a metre.
func round5(x any) float64 { return math.Round(x.(float64)*1e5) / 1e5 }

// TestEachDaySaysWhenAndWhere: each day of get_trip carries its date
// (the start date plus its index) and where it ends; the first day, and a
// day that does not start where the one before ended, say where they
// start. Coordinates are those of get_stage, rounded to 5 decimals. A trip
// without a start date gives no dates.
func TestEachDaySaysWhenAndWhere(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	start := day(30)
	id, ids, _ := e.days(t, 250, map[string]any{"startDate": start})
	require.GreaterOrEqual(t, len(ids), 3)
	first, err := time.Parse("2006-01-02", start)
	require.NoError(t, err)

	type place struct{ start, end []any }
	stages := make([]place, len(ids))
	for i, sid := range ids {
		res := a.Do(t, "GET", "/trips/"+id+"/stages/"+sid+"/detail", e.token, nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		body := res.JSON(t)
		for _, p := range []struct {
			key string
			dst *[]any
		}{{"startPoint", &stages[i].start}, {"endPoint", &stages[i].end}} {
			pt := body[p.key].(map[string]any)
			*p.dst = []any{round5(pt["lat"]), round5(pt["lon"])}
		}
	}

	for face, body := range e.faces(t, id) {
		days := body["days"].([]any)
		require.Len(t, days, len(ids), face)
		for i, x := range days {
			d := x.(map[string]any)
			require.Equal(t, first.AddDate(0, 0, i).Format("2006-01-02"), d["date"], "%s: day %d's date", face, i+1)
			require.Equal(t, stages[i].end, d["end"], "%s: where day %d ends", face, i+1)
			if i == 0 || !equalPlaces(stages[i].start, stages[i-1].end) {
				require.Equal(t, stages[i].start, d["start"], "%s: where day %d starts", face, i+1)
				continue
			}
			require.NotContains(t, d, "start", "%s: day %d starts where day %d ended, which says it", face, i+1, i)
		}
	}

	undated, _, _ := e.days(t, 250, nil)
	for face, body := range e.faces(t, undated) {
		for i, x := range body["days"].([]any) {
			d := x.(map[string]any)
			require.NotContains(t, d, "date", "%s: day %d of a trip without a start date", face, i+1)
			require.Contains(t, d, "end", "%s: day %d still says where it ends", face, i+1)
		}
	}
}

func equalPlaces(a, b []any) bool {
	return len(a) == 2 && len(b) == 2 && a[0] == b[0] && a[1] == b[1]
}

// TestListTripsCountsDaysOnBothFaces: list_trips gives each trip its
// number of riding days and their kilometres, rest days counting none, as
// GET /trips/{id}/detail adds them up, on HTTP and on MCP alike.
func TestListTripsCountsDaysOnBothFaces(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, ids, v := e.days(t, 250, map[string]any{"startDate": day(30)})
	require.GreaterOrEqual(t, len(ids), 3)
	rest := a.Do(t, "POST", "/trips/"+id+"/stages/"+ids[1]+"/rest-day", e.token, nil, ifMatch(float64(*v))...)
	require.Less(t, rest.Status, 300, string(rest.Body))
	a.WaitSettled(t, e.token, id)

	riding, km := 0, 0.0
	for _, x := range e.faces(t, id)["HTTP"]["days"].([]any) {
		d := x.(map[string]any)
		if d["isRestDay"] == true {
			continue
		}
		riding++
		km += d["distance"].(float64)
	}
	require.Equal(t, len(ids), riding, "the rest day is a day more, not a riding day")

	res := a.Do(t, "GET", "/trips", e.token, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	got := apptest.Call(t, e.mcp, "list_trips", map[string]any{})
	require.False(t, got.IsError, got.Text)
	for face, body := range map[string]map[string]any{"HTTP": res.JSON(t), "MCP": got.Structured} {
		members := body["member"].([]any)
		require.Len(t, members, 1, face)
		m := members[0].(map[string]any)
		require.Equal(t, float64(riding), m["stageCount"], "%s: riding days", face)
		require.InDelta(t, km, m["totalDistance"].(float64), 0.1*float64(riding), "%s: their kilometres", face)
	}
}
