package planner_test

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/registry"
)

// env is one user with a token and an MCP session, on one application.
type env struct {
	a     *plannertest.App
	token string
	mcp   *mcp.ClientSession
}

// newEnv is a new user carrying every declared scope, or the given ones.
func newEnv(t testing.TB, a *plannertest.App, scs ...registry.Scope) env {
	u := conformance.NewUser(t, a.App, scs...)
	return env{a: a, token: u.Token, mcp: u.MCP}
}

// as is the kit's user u on a, for the builders below. They use the
// application alone, never the route provider beside it.
func as(a *apptest.App, u conformance.User) env {
	return env{a: &plannertest.App{App: a}, token: u.Token, mcp: u.MCP}
}

func key() string { return "key-" + uuid.NewString() }

// trip creates a trip for the env's user over HTTP and returns its id.
func (e env) trip(t testing.TB, settings map[string]any) string {
	body := map[string]any{"sourceUrl": plannertest.StravaRoute(120)}
	for k, v := range settings {
		body[k] = v
	}
	res := e.a.Do(t, "POST", "/trips", e.token, body, operations.HeaderIdempotencyKey, key())
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	return res.JSON(t)["id"].(string)
}

func (e env) version(t testing.TB, id string) *int64 {
	res := e.a.Do(t, "GET", "/trips/"+id, e.token, nil)
	require.Equal(t, http.StatusOK, res.Status)
	v := int64(res.JSON(t)["version"].(float64))
	return &v
}

// days uploads a trip of km kilometres for the env's user (parse and pacing
// are synchronous) and returns its id, its days' ids and its version.
func (e env) days(t testing.TB, km int, settings map[string]any) (string, []string, *int64) {
	op, ok := e.a.Server.Registry.Lookup("trips.upload")
	require.True(t, ok)
	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: "Days", Points: plannertest.Line(km)}))
	out := e.a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Args: settings, Key: key(),
		Files: map[string]apptest.File{"gpxFile": {Name: "days.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}})
	require.Equal(t, http.StatusAccepted, out.Status, string(out.Raw))
	var ids []string
	for _, x := range out.Body["days"].([]any) {
		ids = append(ids, x.(map[string]any)["id"].(string))
	}
	v := int64(out.Body["version"].(float64))
	return out.Body["id"].(string), ids, &v
}

// gpxFile is the upload form's file: a route of km kilometres.
func gpxFile(t testing.TB, km int) map[string]apptest.File {
	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: "Upload", Points: plannertest.Line(km)}))
	return map[string]apptest.File{"gpxFile": {Name: "upload.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}
}

// shareCodes remembers the public code of every trip shared for a fixture,
// by trip id: the probe of a revocation reads the share at its code.
var shareCodes sync.Map

// shared makes a trip with days and shares it; it returns the trip's id
// and the share's public code.
func (e env) shared(t testing.TB) (string, string) {
	id, _, _ := e.days(t, 120, nil)
	res := e.a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil)
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	code := res.JSON(t)["shortCode"].(string)
	shareCodes.Store(id, code)
	return id, code
}

func sharedCode(t testing.TB, e env) apptest.Request {
	_, code := e.shared(t)
	return apptest.Request{Vars: map[string]string{"code": code}}
}

// sharedDay is the second day of a shared trip, at its public address.
func sharedDay(t testing.TB, e env) apptest.Request {
	r := sharedCode(t, e)
	r.Vars["index"] = "1"
	return r
}

// stageFile is the second day of a trip, for its owner's export.
func stageFile(t testing.TB, e env) apptest.Request {
	r := stageReq(t, e, 200, nil, 1, nil)
	r.Version = nil
	return r
}

func tripWithDays(t testing.TB, e env) apptest.Request {
	id, _, _ := e.days(t, 120, nil)
	return apptest.Request{Vars: map[string]string{"id": id}}
}

// settledTrip is a trip whose days are computed and whose analyses have
// all settled: an analysis asked for meanwhile is refused as running.
func settledTrip(t testing.TB, e env) apptest.Request {
	r := tripWithDays(t, e)
	// Every trip the kit makes queues its computations on the same few
	// workers: under a whole run's load they take their turn.
	deadline := time.Now().Add(4 * time.Minute)
	for {
		res := e.a.Do(t, http.MethodGet, "/trips/"+r.Vars["id"], e.token, nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		if settled(res.JSON(t)) {
			return r
		}
		require.True(t, time.Now().Before(deadline), "the trip's analyses never settled: %s", res.Body)
		time.Sleep(20 * time.Millisecond)
	}
}

func stageReq(t testing.TB, e env, km int, settings map[string]any, which int, args map[string]any) apptest.Request {
	id, ids, v := e.days(t, km, settings)
	vars := map[string]string{"id": id}
	if which >= 0 {
		vars["stageId"] = ids[which]
	}
	return apptest.Request{Vars: vars, Args: args, Version: v}
}

func day(offset int) string { return time.Now().UTC().AddDate(0, 0, offset).Format("2006-01-02") }

// builder makes a call as one env; changer changes a valid call (Invalid,
// Locked). valid and change adapt them to the kit's fixture fields.
type (
	builder func(t testing.TB, e env) apptest.Request
	changer func(t testing.TB, e env, r apptest.Request) apptest.Request
)

func valid(b builder) func(testing.TB, *apptest.App, conformance.User) apptest.Request {
	return func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request { return b(t, as(a, u)) }
}

func change(c changer) func(testing.TB, *apptest.App, conformance.User, apptest.Request) apptest.Request {
	return func(t testing.TB, a *apptest.App, u conformance.User, r apptest.Request) apptest.Request {
		return c(t, as(a, u), r)
	}
}

// tripMoved is the probe of a versioned write: the trip the call names is
// gone, or its version moved from the one the call carries. Every such
// write of a trip or of its days bumps the trip's version.
func tripMoved(t testing.TB, a *apptest.App, u conformance.User, r apptest.Request) bool {
	t.Helper()
	res := a.Do(t, "GET", "/trips/"+r.Vars["id"], u.Token, nil)
	if res.Status == http.StatusNotFound {
		return true
	}
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	return int64(res.JSON(t)["version"].(float64)) != *r.Version
}

// tripGone is the probe of a deletion: the trip no longer answers.
func tripGone(t testing.TB, a *apptest.App, u conformance.User, r apptest.Request) bool {
	t.Helper()
	res := a.Do(t, "GET", "/trips/"+r.Vars["id"], u.Token, nil)
	require.Contains(t, []int{http.StatusOK, http.StatusNotFound}, res.Status, string(res.Body))
	return res.Status == http.StatusNotFound
}

// shareRevoked is the probe of a revocation: the trip's public code no
// longer answers.
func shareRevoked(t testing.TB, a *apptest.App, _ conformance.User, r apptest.Request) bool {
	t.Helper()
	code, ok := shareCodes.Load(r.Vars["id"])
	require.True(t, ok, "the trip %s was shared by a fixture", r.Vars["id"])
	res := a.Do(t, "GET", "/s/"+code.(string), "", nil)
	require.Contains(t, []int{http.StatusOK, http.StatusNotFound}, res.Status, string(res.Body))
	return res.Status == http.StatusNotFound
}

// stageLocked is a stage request on a trip that started yesterday.
func stageLocked(which int, args map[string]any) changer {
	return func(t testing.TB, e env, _ apptest.Request) apptest.Request {
		return stageReq(t, e, 200, map[string]any{"startDate": day(-1)}, which, args)
	}
}

// fixtures has one entry per operation of the trip planner. An operation
// without one fails the parity test: declarations alone prove nothing,
// refusals do.
var fixtures = conformance.Fixtures{
	"trips.list": {Valid: valid(func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Args: map[string]any{"page": 1}}
	})},
	"trips.create": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			return apptest.Request{Args: map[string]any{"sourceUrl": plannertest.StravaRoute(120)}}
		}),
		Conflicting: func(r apptest.Request) apptest.Request {
			r.Args["maxDistancePerDay"] = 150
			return r
		},
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args["startDate"], r.Args["endDate"] = day(40), day(39)
			return r
		}),
	},
	"trips.get": {Valid: valid(func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
	})},
	"trips.state": {Valid: valid(func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
	})},
	"trips.update_settings": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			id := e.trip(t, map[string]any{"startDate": day(30), "endDate": day(33)})
			return apptest.Request{Vars: map[string]string{"id": id}, Args: map[string]any{"maxDistancePerDay": 120}, Version: e.version(t, id)}
		}),
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args = map[string]any{"endDate": day(29)} // before the stored start date
			return r
		}),
		Locked: change(func(t testing.TB, e env, _ apptest.Request) apptest.Request {
			id := e.trip(t, map[string]any{"startDate": day(-1)})
			// A future start date in the request must not unlock the started trip.
			return apptest.Request{Vars: map[string]string{"id": id}, Args: map[string]any{"startDate": day(60)}, Version: e.version(t, id)}
		}),
		Written: tripMoved,
		Harmless: valid(func(t testing.TB, e env) apptest.Request {
			id := e.trip(t, map[string]any{"startDate": day(30)})
			return apptest.Request{Vars: map[string]string{"id": id}, Args: map[string]any{"title": "A new name"}, Version: e.version(t, id)}
		}),
	},
	"trips.delete": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
		}),
		Written: tripGone,
	},
	"trips.events": {Valid: valid(func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
	})},
	"trips.events_ticket": {Valid: valid(func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
	})},
	"trips.upload": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			return apptest.Request{Args: map[string]any{"maxDistancePerDay": 60}, Files: gpxFile(t, 120)}
		}),
		Conflicting: func(r apptest.Request) apptest.Request {
			r.Args["maxDistancePerDay"] = 90
			return r
		},
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args["startDate"], r.Args["endDate"] = day(40), day(39)
			return r
		}),
	},
	"trips.duplicate": {
		Valid: valid(tripWithDays),
		Conflicting: func(r apptest.Request) apptest.Request {
			r.Args = map[string]any{"title": "Another copy"}
			return r
		},
		Invalid: change(func(t testing.TB, e env, _ apptest.Request) apptest.Request {
			// a copy of a trip whose settings no longer hold is refused by name
			id, _, _ := e.days(t, 120, nil)
			return apptest.Request{Vars: map[string]string{"id": id}, Args: map[string]any{"title": ""}}
		}),
	},
	"trips.recompute": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			r := tripWithDays(t, e)
			r.Args = map[string]any{"modifications": []any{map[string]any{"type": "dates"}}}
			return r
		}),
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args = map[string]any{"modifications": []any{map[string]any{"type": "accommodation"}}} // no stageIndex
			return r
		}),
	},
	"trips.scan_accommodations": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			r := tripWithDays(t, e)
			r.Args = map[string]any{"radiusKm": 10}
			return r
		}),
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args = map[string]any{"stageIndex": 99}
			return r
		}),
	},
	"trips.nearby_pois": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			r := tripWithDays(t, e)
			r.Args = map[string]any{"category": "shelter", "position": map[string]any{"lat": 0, "lon": 0.5}}
			return r
		}),
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args["stageDay"] = 99
			return r
		}),
	},
	"places.reverse": {Valid: valid(func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Args: map[string]any{"lat": 45.76, "lon": 4.84}}
	})},
	"shares.create": {Valid: valid(func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
	})},
	"shares.revoke": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			id, _ := e.shared(t)
			return apptest.Request{Vars: map[string]string{"id": id}}
		}),
		Written: shareRevoked,
	},
	"shares.read":     {Valid: valid(sharedCode)},
	"shares.file_gpx": {Valid: valid(sharedCode)},
	"shares.file_fit": {Valid: valid(sharedCode)},
	"trips.file_gpx":  {Valid: valid(tripWithDays)},
	"trips.file_fit":  {Valid: valid(tripWithDays)},
	"trips.route":     {Valid: valid(tripWithDays)},
	"shares.route":    {Valid: valid(sharedCode)},
	"shares.get": {Valid: valid(func(t testing.TB, e env) apptest.Request {
		id, _ := e.shared(t)
		return apptest.Request{Vars: map[string]string{"id": id}}
	})},
	"shares.stage_file_gpx": {Valid: valid(sharedDay)},
	"shares.stage_file_fit": {Valid: valid(sharedDay)},
	"stages.file_gpx":       {Valid: valid(stageFile)},
	"stages.file_fit":       {Valid: valid(stageFile)},
	"places.search": {Valid: valid(func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Args: map[string]any{"q": "Lyon"}}
	})},
	"trips.analyze": {Valid: valid(settledTrip)},
	"stages.choose_accommodation": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			return stageReq(t, e, 200, nil, 0, map[string]any{"accommodationId": nil})
		}),
		Invalid: change(func(t testing.TB, e env, r apptest.Request) apptest.Request {
			// a rest day has no night of its own to choose a place for
			res := e.a.Do(t, "POST", "/trips/"+r.Vars["id"]+"/stages/"+r.Vars["stageId"]+"/rest-day", e.token, nil,
				"If-Match", fmt.Sprintf(`"%d"`, *r.Version))
			require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
			rest := res.JSON(t)["stage"].(map[string]any)["id"].(string)
			v := *r.Version + 1
			return apptest.Request{Vars: map[string]string{"id": r.Vars["id"], "stageId": rest}, Args: map[string]any{"accommodationId": "osm:node:1"}, Version: &v}
		}),
		Locked:  change(stageLocked(0, map[string]any{"accommodationId": nil})),
		Written: tripMoved,
	},
	// add_waypoint stores nothing and leaves the version as it is: it has
	// no write for a probe to see.
	"stages.add_waypoint": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			r := stageReq(t, e, 200, nil, 0, map[string]any{"waypointLat": 0.01, "waypointLon": 0.2})
			r.Version = nil
			return r
		}),
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args = map[string]any{"waypointLat": 60.0, "waypointLon": 100.0}
			return r
		}),
		Locked: change(func(t testing.TB, e env, r apptest.Request) apptest.Request {
			r = stageLocked(0, map[string]any{"waypointLat": 0.01, "waypointLon": 0.2})(t, e, r)
			r.Version = nil // add_waypoint takes no version: it does not move it
			return r
		}),
	},
	"stages.manual_accommodation": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			return stageReq(t, e, 200, nil, 0, map[string]any{"name": "Chez Marie", "address": "Lyon", "priceTotal": 45})
		}),
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args["address"] = "Qqqxzzyv nowhere at all"
			return r
		}),
		Locked:  change(stageLocked(0, map[string]any{"name": "Chez Marie", "address": "Lyon"})),
		Written: tripMoved,
	},
	"stages.get": {Valid: valid(func(t testing.TB, e env) apptest.Request {
		r := stageReq(t, e, 200, nil, 1, nil)
		r.Version = nil
		return r
	})},
	"stages.add": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			return stageReq(t, e, 200, nil, -1, map[string]any{
				"startPoint": map[string]any{"lat": 0, "lon": 1.8}, "endPoint": map[string]any{"lat": 0, "lon": 2.2}})
		}),
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args["position"] = 99
			return r
		}),
		Locked:  change(stageLocked(-1, map[string]any{"startPoint": map[string]any{"lat": 0, "lon": 1}, "endPoint": map[string]any{"lat": 0, "lon": 1.1}})),
		Written: tripMoved,
	},
	"stages.update": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			return stageReq(t, e, 200, nil, 0, map[string]any{"label": "Over the pass"})
		}),
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args = map[string]any{"distance": 50, "endPoint": map[string]any{"lat": 0, "lon": 1}}
			return r
		}),
		Locked:  change(stageLocked(0, map[string]any{"label": "x"})),
		Written: tripMoved,
	},
	"stages.move": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			return stageReq(t, e, 200, nil, 0, map[string]any{"toIndex": 2})
		}),
		Invalid: change(func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
			r.Args["toIndex"] = 99
			return r
		}),
		Locked:  change(stageLocked(0, map[string]any{"toIndex": 1})),
		Written: tripMoved,
	},
	"stages.delete": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			return stageReq(t, e, 200, nil, 1, nil)
		}),
		Invalid: change(func(t testing.TB, e env, _ apptest.Request) apptest.Request {
			return stageReq(t, e, 100, nil, 0, nil) // two days: a trip keeps at least two
		}),
		Locked:  change(stageLocked(0, nil)),
		Written: tripMoved,
	},
	"stages.rest_day": {
		Valid: valid(func(t testing.TB, e env) apptest.Request {
			return stageReq(t, e, 200, nil, 0, nil)
		}),
		Invalid: change(func(t testing.TB, e env, r apptest.Request) apptest.Request {
			// after a rest day is another rest day: refused
			res := e.a.Do(t, "POST", "/trips/"+r.Vars["id"]+"/stages/"+r.Vars["stageId"]+"/rest-day", e.token, nil,
				"If-Match", fmt.Sprintf(`"%d"`, *r.Version))
			require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
			rest := res.JSON(t)["stage"].(map[string]any)["id"].(string)
			v := *r.Version + 1
			return apptest.Request{Vars: map[string]string{"id": r.Vars["id"], "stageId": rest}, Version: &v}
		}),
		Locked:  change(stageLocked(0, nil)),
		Written: tripMoved,
	},
}

// TestParity is the conformance kit run over the trip planner's own
// modules: for every operation and every guard it declares, a request this
// guard must refuse, over HTTP and over MCP, with the same refusal.
func TestParity(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	fx := doortest.Fixtures(a.Server.Registry) // the door's operations: sign-in, the account, OAuth
	maps.Copy(fx, fixtures)
	conformance.Exercise(t, a.App, fx)
}
