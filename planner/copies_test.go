package planner_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
)

// tripCount is how many trips the env's user has.
func (e env) tripCount(t testing.TB) int {
	res := e.a.Do(t, "GET", "/trips", e.token, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	return int(res.JSON(t)["totalItems"].(float64))
}

// duplicate asks for a copy of trip id with the given key (none when "").
func (e env) duplicate(t testing.TB, id, k string, body any) *apptest.Response {
	if k == "" {
		return e.a.Do(t, "POST", "/trips/"+id+"/duplicate", e.token, body)
	}
	return e.a.Do(t, "POST", "/trips/"+id+"/duplicate", e.token, body, operations.HeaderIdempotencyKey, k)
}

// upload sends a GPX file of km kilometres with the key k (none when "").
func (e env) upload(t testing.TB, k string, km int, args map[string]any) apptest.Outcome {
	op, ok := e.a.Server.Registry.Lookup("trips.upload")
	require.True(t, ok)
	return e.a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Args: args, Key: k, Files: gpxFile(t, km)})
}

func detail(t testing.TB, e env, id string) map[string]any {
	res := e.a.Do(t, "GET", "/trips/"+id+"/detail", e.token, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	return res.JSON(t)
}

// TestDuplicateCopiesTheTripButNotItsShares: settings, title, route and
// days with what was computed; no share link; 201 with Location; the key
// as on creation (replay, reuse on another trip, missing).
func TestDuplicateCopiesTheTripButNotItsShares(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		id, _, _ := e.days(t, 200, map[string]any{"startDate": day(10), "endDate": day(12), "averageSpeed": 18})
		a.WaitSettled(t, e.token, id)
		require.Equal(t, http.StatusCreated, a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil).Status)
		before := e.tripCount(t)

		k := key()
		res := e.duplicate(t, id, k, nil)
		require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
		copyID := res.JSON(t)["id"].(string)
		require.NotEqual(t, id, copyID)
		require.Equal(t, "/trips/"+copyID, res.Header.Get("Location"))
		require.Equal(t, false, res.JSON(t)["isLocked"])

		orig, cp := detail(t, e, id), detail(t, e, copyID)
		require.Equal(t, orig["settings"], cp["settings"], "settings, title and source are copied")
		require.Equal(t, orig["sourceType"], cp["sourceType"])
		require.Equal(t, false, cp["partial"])
		require.Len(t, cp["days"], len(orig["days"].([]any)))
		for i, d := range cp["days"].([]any) {
			od, cd := orig["days"].([]any)[i].(map[string]any), d.(map[string]any)
			require.NotEqual(t, od["id"], cd["id"], "the days are the copy's own")
			require.Equal(t, od["distance"], cd["distance"])
			require.Equal(t, od["alerts"], cd["alerts"], "computed data is copied")
		}
		for name, st := range cp["computationStatus"].(map[string]any) {
			require.Contains(t, []any{"done", "failed"}, st, "%s is settled on the copy as on the original", name)
		}
		require.Equal(t, http.StatusCreated, a.Do(t, "POST", "/trips/"+copyID+"/share", e.token, nil).Status,
			"the copy has no active share: the original's was not copied")

		again := e.duplicate(t, id, k, nil)
		require.Equal(t, http.StatusCreated, again.Status, string(again.Body))
		require.Equal(t, copyID, again.JSON(t)["id"], "the same key replays the first copy")
		require.Equal(t, "true", again.Header.Get(operations.HeaderIdempotentReplayed))

		other, _, _ := e.days(t, 120, nil)
		require.Equal(t, http.StatusConflict, e.duplicate(t, other, k, nil).Status, "the key names a copy of another trip")
		require.Equal(t, http.StatusBadRequest, e.duplicate(t, id, "", nil).Status, "a creation needs its key")
		require.Equal(t, http.StatusBadRequest, e.duplicate(t, id, "too-short", nil).Status)
		blank := e.duplicate(t, id, key(), map[string]any{"title": "   "})
		require.Equal(t, http.StatusUnprocessableEntity, blank.Status, string(blank.Body))
		require.Contains(t, string(blank.Body), `"title"`)
		require.Equal(t, before+2, e.tripCount(t), "one copy and the other trip; the refusals created nothing")

		named := e.duplicate(t, id, key(), map[string]any{"title": "Second go"})
		require.Equal(t, http.StatusCreated, named.Status, string(named.Body))
		require.Equal(t, "Second go", detail(t, e, named.JSON(t)["id"].(string))["settings"].(map[string]any)["title"])

		stranger := newEnv(t, a)
		foreign := stranger.duplicate(t, id, key(), nil)
		unknown := stranger.duplicate(t, "0190a8b0-0000-7000-8000-000000000000", key(), nil)
		require.Equal(t, http.StatusNotFound, foreign.Status, "someone else's trip is not found")
		require.Equal(t, http.StatusNotFound, unknown.Status) // the kit compares the bodies (owner scenario)
	})
}

// TestDuplicateOfAStartedTripIsBornLocked: the copy keeps the start date,
// so a copy of a trip that started yesterday is locked, and says so.
func TestDuplicateOfAStartedTripIsBornLocked(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id, _, _ := e.days(t, 120, map[string]any{"startDate": day(-1)})
	res := e.duplicate(t, id, key(), nil)
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	body := res.JSON(t)
	require.Equal(t, true, body["isLocked"])
	require.Contains(t, body["next"], "locked")
	copyID := body["id"].(string)
	require.Equal(t, true, a.Do(t, "GET", "/trips/"+copyID, e.token, nil).JSON(t)["isLocked"])
	patch := a.Do(t, "PATCH", "/trips/"+copyID, e.token, map[string]any{"title": "x"}, "If-Match", `"1"`)
	require.Equal(t, http.StatusLocked, patch.Status, string(patch.Body))
}

// TestConcurrentCreationsWithOneKeyMakeOne: duplicates and uploads sent at
// once with one key answer one trip, and the user has one more trip.
func TestConcurrentCreationsWithOneKeyMakeOne(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		src, _, _ := e.days(t, 120, nil)
		before := e.tripCount(t)
		const n = 4
		for _, create := range []struct {
			name string
			send func(k string) (int, string)
		}{
			{"duplicate", func(k string) (int, string) {
				res := e.duplicate(t, src, k, nil)
				id, _ := res.JSON(t)["id"].(string)
				return res.Status, id
			}},
			{"upload", func(k string) (int, string) {
				out := e.upload(t, k, 120, nil)
				id, _ := out.Body["id"].(string)
				return out.Status, id
			}},
		} {
			k := key()
			var wg sync.WaitGroup
			ids := make([]string, n)
			statuses := make([]int, n)
			for i := range n {
				wg.Go(func() { statuses[i], ids[i] = create.send(k) })
			}
			wg.Wait()
			for i := range n {
				require.Less(t, statuses[i], 300, "%s %d", create.name, i)
				require.Equal(t, ids[0], ids[i], "%s: one trip for one key", create.name)
			}
			before++
			require.Equal(t, before, e.tripCount(t), "%s: exactly one trip was made", create.name)
		}
	})
}

// TestUploadTakesAnIdempotencyKey: the same file twice with one key makes
// one trip; another file with the key is refused; no key is refused; the
// answer points at the trip.
func TestUploadTakesAnIdempotencyKey(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		k := key()
		first := e.upload(t, k, 120, map[string]any{"maxDistancePerDay": 60})
		require.Equal(t, http.StatusAccepted, first.Status, string(first.Raw))
		id := first.Body["id"].(string)
		require.Equal(t, "/trips/"+id, first.Header.Get("Location"))

		again := e.upload(t, k, 120, map[string]any{"maxDistancePerDay": 60})
		require.Equal(t, http.StatusAccepted, again.Status, string(again.Raw))
		require.Equal(t, id, again.Body["id"], "the same file with the same key is the same trip")
		require.Equal(t, "true", again.Header.Get(operations.HeaderIdempotentReplayed))
		require.Equal(t, withoutAlerts(first.Body["days"]), withoutAlerts(again.Body["days"]),
			"the replay answers the trip's days (their alerts as analysed since)")
		require.Equal(t, first.Body["totalDistance"], again.Body["totalDistance"])

		other := e.upload(t, k, 150, map[string]any{"maxDistancePerDay": 60})
		require.Equal(t, http.StatusConflict, other.Status, "another file under the same key: %s", other.Raw)
		none := e.upload(t, "", 120, nil)
		require.Equal(t, http.StatusBadRequest, none.Status, string(none.Raw))
		require.True(t, strings.Contains(string(none.Raw), "idempotency"), string(none.Raw))
		require.Equal(t, 1, e.tripCount(t), "one trip, whatever was refused")
	})
}

// TestTheCreationsOfATripTakeAKey: exactly the three operations that mint a
// trip's id (create, duplicate, and the upload, which makes a trip as the
// other two do, so a retried upload must not make a second one) take an
// Idempotency-Key, no other does, and each refuses a call without one.
func TestTheCreationsOfATripTakeAKey(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	var keyed []string
	for _, op := range a.Server.Registry.Operations() {
		if op.Idempotency.Creation() {
			keyed = append(keyed, op.ID)
		}
	}
	require.Equal(t, []string{"trips.create", "trips.duplicate", "trips.upload"}, keyed)

	e := newEnv(t, a)
	src, _, _ := e.days(t, 120, nil)
	before := e.tripCount(t)
	create := a.Do(t, "POST", "/trips", e.token, map[string]any{"sourceUrl": plannertest.StravaRoute(120)})
	require.Equal(t, http.StatusBadRequest, create.Status, string(create.Body))
	require.Equal(t, http.StatusBadRequest, e.duplicate(t, src, "", nil).Status)
	require.Equal(t, http.StatusBadRequest, e.upload(t, "", 120, nil).Status)
	require.Equal(t, before, e.tripCount(t), "nothing was created without a key")
}

// withoutAlerts is a list of days without their alert counts, which the
// analysis may have written between two reads.
func withoutAlerts(days any) []map[string]any {
	var out []map[string]any
	for _, d := range days.([]any) {
		m := map[string]any{}
		for k, v := range d.(map[string]any) {
			if k != "alerts" {
				m[k] = v
			}
		}
		out = append(out, m)
	}
	return out
}
