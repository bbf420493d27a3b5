package planner_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/planner/plannertest"
)

// history lists the computations recorded for generation gen of a trip.
func history(t testing.TB, a *plannertest.App, id string, gen int) []string {
	var names []string
	require.NoError(t, a.DB.NewSelect().Table("computations").Column("name").
		Where("trip_id = ? AND generation = ?", id, gen).Scan(context.Background(), &names))
	sort.Strings(names)
	return names
}

// refusedField sends a refused call and returns the fields its problem names.
func refusedField(t testing.TB, e env, method, path string, body any, status int) []string {
	t.Helper()
	res := e.a.Do(t, method, path, e.token, body)
	require.Equal(t, status, res.Status, string(res.Body))
	return fields(res.JSON(t))
}

// state is the trip's address answer.
func state(t testing.TB, e env, id string) map[string]any {
	res := e.a.Do(t, "GET", "/trips/"+id, e.token, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	return res.JSON(t)
}

// TestRecomputeFollowsItsModifications: each bad list is refused naming
// the field, and nothing is written; a good one starts a new generation
// that re-runs what the changes affect, on a locked trip too.
func TestRecomputeFollowsItsModifications(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, _, _ := e.days(t, 200, map[string]any{"startDate": day(-1)}) // started: recompute is not a rider's edit
	settled := a.WaitSettled(t, e.token, id)
	path := "/trips/" + id + "/recompute"

	for _, tt := range []struct {
		name  string
		body  any
		field string
	}{
		{"no list", map[string]any{}, "modifications"},
		{"an empty list", map[string]any{"modifications": []any{}}, "modifications"},
		{"a day needed", map[string]any{"modifications": []any{map[string]any{"type": "accommodation"}}}, "modifications[0].stageIndex"},
		{"a day needed for distance", map[string]any{"modifications": []any{map[string]any{"type": "dates"}, map[string]any{"type": "distance"}}}, "modifications[1].stageIndex"},
		{"no such day", map[string]any{"modifications": []any{map[string]any{"type": "distance", "stageIndex": 99}}}, "modifications[0].stageIndex"},
		{"no such kind", map[string]any{"modifications": []any{map[string]any{"type": "weather"}}}, "modifications[0].type"},
	} {
		fields := refusedField(t, e, "POST", path, tt.body, http.StatusUnprocessableEntity)
		require.Contains(t, fields, tt.field, tt.name)
		require.Equal(t, settled, state(t, e, id), "%s: nothing was written", tt.name)
		require.Empty(t, history(t, a, id, 2), "%s: no generation was started", tt.name)
	}

	res := a.Do(t, "POST", path, e.token, map[string]any{"modifications": []any{
		map[string]any{"type": "accommodation", "stageIndex": 0, "label": "moved the night"}}})
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.Equal(t, "/trips/"+id, res.Header.Get("Location"))
	require.Equal(t, true, res.JSON(t)["isLocked"], "the answer tells the true lock")
	require.Equal(t, []string{"accommodations", "bike_shops", "events", "pois", "terrain"}, history(t, a, id, 2), "a new generation re-runs what the change affects")
	after := a.WaitSettled(t, e.token, id)
	require.Equal(t, "done", after["computationStatus"].(map[string]any)["terrain"])
	require.Equal(t, settled["version"], after["version"], "the structure did not change: the version holds")
}

// TestScanWidensTheAccommodationSearch: a wider radius finds what the
// default one does not, for the day asked or every day, appended to the
// candidates; a radius out of range or an unknown day is refused by name,
// and nothing is written.
func TestScanWidensTheAccommodationSearch(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, ids, _ := e.days(t, 200, nil)
	a.WaitSettled(t, e.token, id)
	end := func(i int) (float64, float64) {
		p := e.stage(t, id, ids[i])["endPoint"].(map[string]any)
		return p["lat"].(float64), p["lon"].(float64)
	}
	// A camp site 8 km north of the first two days' ends: beyond the
	// default 5 km, within 10.
	for i := range 2 {
		lat, lon := end(i)
		require.NoError(t, poi.NewStore(a.DB).Upsert(context.Background(), []poi.POI{{
			ID: poi.OSMKey("node", int64(7000+i)), Source: "osm", OSMType: "node", OSMID: int64(7000 + i),
			Name: fmt.Sprintf("Camping %d", i), Category: "camp_site", Lat: lat + 8/111.0, Lon: lon, Tags: poi.Tags{},
		}}))
	}
	names := func(i int) []string {
		out := []string{}
		list, _ := e.stage(t, id, ids[i])["accommodations"].([]any)
		for _, x := range list {
			out = append(out, x.(map[string]any)["name"].(string))
		}
		return out
	}
	require.Equal(t, http.StatusAccepted, a.Do(t, "POST", "/trips/"+id+"/analyze", e.token, nil).Status)
	a.WaitSettled(t, e.token, id)
	require.Empty(t, names(0), "5 km do not reach 8 km")

	path := "/trips/" + id + "/accommodations/scan"
	settled := state(t, e, id)
	for _, tt := range []struct {
		name  string
		body  any
		field string
	}{
		{"too small a radius", map[string]any{"radiusKm": 0.5}, "radiusKm"},
		{"too large a radius", map[string]any{"radiusKm": 16}, "radiusKm"},
		{"no such day", map[string]any{"stageIndex": 99}, "stageIndex"},
		{"not a number", map[string]any{"radiusKm": "far"}, "radiusKm"},
	} {
		require.Contains(t, refusedField(t, e, "POST", path, tt.body, http.StatusUnprocessableEntity), tt.field, tt.name)
		require.Equal(t, settled, state(t, e, id), "%s: nothing was written", tt.name)
	}

	res := a.Do(t, "POST", path, e.token, map[string]any{"radiusKm": 10, "stageIndex": 0})
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	require.Equal(t, "/trips/"+id, res.Header.Get("Location"))
	a.WaitSettled(t, e.token, id)
	require.Equal(t, []string{"Camping 0"}, names(0), "the day asked finds the camp site 8 km away")
	require.Empty(t, names(1), "the other days were not scanned")

	require.Equal(t, http.StatusAccepted, a.Do(t, "POST", path, e.token, map[string]any{"radiusKm": 10}).Status)
	a.WaitSettled(t, e.token, id)
	require.Equal(t, []string{"Camping 0"}, names(0), "appended, never listed twice")
	require.Equal(t, []string{"Camping 1"}, names(1), "every day when none is named")

	require.Equal(t, http.StatusAccepted, a.Do(t, "POST", "/trips/"+id+"/analyze", e.token, nil).Status)
	a.WaitSettled(t, e.token, id)
	require.Empty(t, names(0), "a new analysis scans afresh, at the default radius")
}

// stage reads one day in full.
func (e env) stage(t testing.TB, id, stageID string) map[string]any {
	res := e.a.Do(t, "GET", "/trips/"+id+"/stages/"+stageID+"/detail", e.token, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	return res.JSON(t)
}

// TestNearbyPOIsOnTheRoad: a read that works on a started trip; at most
// three places, nearest first, with capReached and outOfCoverage telling
// the truth; bad arguments named.
func TestNearbyPOIsOnTheRoad(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, _, _ := e.days(t, 120, map[string]any{"startDate": day(-1)})
	path := "/trips/" + id + "/nearby-pois"
	const lat, lon = 0.3, 0.5
	for i, m := range []float64{500, 800, 1500, 2500} { // huts north of the position
		require.NoError(t, poi.NewStore(a.DB).Upsert(context.Background(), []poi.POI{{
			ID: poi.OSMKey("node", int64(8000+i)), Source: "osm", OSMType: "node", OSMID: int64(8000 + i),
			Name: fmt.Sprintf("Hut %d", i), Category: "alpine_hut", Lat: lat + m/110_574, Lon: lon, Tags: poi.Tags{},
		}}))
	}
	ask := func(body map[string]any) map[string]any {
		res := a.Do(t, "POST", path, e.token, body)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		return res.JSON(t)
	}
	at := func(la, lo float64) map[string]any { return map[string]any{"lat": la, "lon": lo} }

	got := ask(map[string]any{"category": "shelter", "position": at(lat, lon)})
	require.Equal(t, false, got["outOfCoverage"])
	require.EqualValues(t, 3000, got["radiusMeters"], "the category's default")
	require.EqualValues(t, 4, got["totalFound"])
	require.Equal(t, true, got["capReached"])
	var names []string
	for _, p := range got["pois"].([]any) {
		names = append(names, p.(map[string]any)["name"].(string))
	}
	require.Equal(t, []string{"Hut 0", "Hut 1", "Hut 2"}, names, "the three nearest, nearest first")

	small := ask(map[string]any{"category": "shelter", "position": at(lat, lon), "radiusMeters": 50, "stageDay": 1})
	require.EqualValues(t, 1000, small["radiusMeters"], "clamped to 1 km")
	require.EqualValues(t, 2, small["totalFound"])
	require.Equal(t, false, small["capReached"])

	empty := ask(map[string]any{"category": "shelter", "position": at(lat+10_000/110_574.0, lon)})
	require.EqualValues(t, 0, empty["totalFound"])
	require.Equal(t, false, empty["outOfCoverage"], "nothing within 3 km, but the area holds data: the answer is the ground's")

	far := ask(map[string]any{"category": "shelter", "position": at(10, 10)})
	require.Equal(t, true, far["outOfCoverage"], "no data of any kind around: an empty answer says nothing")
	water := ask(map[string]any{"category": "water", "position": at(lat, lon)})
	require.Equal(t, false, water["outOfCoverage"], "the area's data is imported, water points with it: none is the ground's answer")
	require.Empty(t, water["pois"])

	for _, tt := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no such day", map[string]any{"category": "water", "position": at(lat, lon), "stageDay": 99}, "stageDay"},
		{"day zero", map[string]any{"category": "water", "position": at(lat, lon), "stageDay": 0}, "stageDay"},
		{"no such category", map[string]any{"category": "pizza", "position": at(lat, lon)}, "category"},
		{"no position", map[string]any{"category": "water"}, "position"},
		{"off the globe", map[string]any{"category": "water", "position": at(95, lon)}, "position.lat"},
	} {
		require.Contains(t, refusedField(t, e, "POST", path, tt.body, http.StatusUnprocessableEntity), tt.field, tt.name)
	}
}

// TestReverseGeocodeOffline names a position from the embedded gazetteer.
func TestReverseGeocodeOffline(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	res := a.Do(t, "GET", "/geocode/reverse?lat=47.2378&lon=6.0241", e.token, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	results := res.JSON(t)["results"].([]any)
	require.Len(t, results, 1)
	require.Equal(t, "Besançon", results[0].(map[string]any)["name"])

	sea := a.Do(t, "GET", "/geocode/reverse?lat=30&lon=-40", e.token, nil)
	require.Equal(t, http.StatusOK, sea.Status, string(sea.Body))
	require.Empty(t, sea.JSON(t)["results"], "nothing known there: an empty list")

	require.Contains(t, refusedField(t, e, "GET", "/geocode/reverse?lat=95&lon=6", nil, http.StatusUnprocessableEntity), "lat")
	missing := a.Do(t, "GET", "/geocode/reverse?lat=47", e.token, nil)
	require.Less(t, missing.Status, 500)
	require.GreaterOrEqual(t, missing.Status, 400, "lon is required: %s", missing.Body)
	require.Equal(t, http.StatusUnauthorized, a.Do(t, "GET", "/geocode/reverse?lat=47&lon=6", "", nil).Status)
}
