package planner_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/scopes"
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

var users atomic.Int64

func newEnv(t testing.TB, a *plannertest.App, scs ...registry.Scope) env {
	if len(scs) == 0 {
		scs = a.Server.Registry.Scopes()
	}
	tok := a.Token(t, fmt.Sprintf("user%d@example.com", users.Add(1)), scs...)
	return env{a: a, token: tok, mcp: a.MCP(t, tok)}
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
	out := e.a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Args: settings,
		Files: map[string]apptest.File{"gpxFile": {Name: "days.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}})
	require.Equal(t, http.StatusAccepted, out.Status, string(out.Raw))
	var ids []string
	for _, x := range out.Body["days"].([]any) {
		ids = append(ids, x.(map[string]any)["id"].(string))
	}
	v := int64(out.Body["version"].(float64))
	return out.Body["id"].(string), ids, &v
}

// shared makes a trip with days and shares it; it returns the trip's id
// and the share's public code.
func (e env) shared(t testing.TB) (string, string) {
	id, _, _ := e.days(t, 120, nil)
	res := e.a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil)
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	return id, res.JSON(t)["shortCode"].(string)
}

func sharedCode(t testing.TB, e env) apptest.Request {
	_, code := e.shared(t)
	return apptest.Request{Vars: map[string]string{"code": code}}
}

func tripWithDays(t testing.TB, e env) apptest.Request {
	id, _, _ := e.days(t, 120, nil)
	return apptest.Request{Vars: map[string]string{"id": id}}
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

// fixture builds a request that every guard of op lets through, for the
// given user; each refusal scenario then breaks one thing of it.
type fixture func(t testing.TB, e env) apptest.Request

// fixtures has one entry per operation. An operation without one fails the
// parity test: declarations alone prove nothing, refusals do.
var fixtures = map[string]fixture{
	"trips.list": func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Args: map[string]any{"page": 1}}
	},
	"trips.create": func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Args: map[string]any{"sourceUrl": plannertest.StravaRoute(120)}, Key: key()}
	},
	"trips.get": func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
	},
	"trips.state": func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
	},
	"trips.update_settings": func(t testing.TB, e env) apptest.Request {
		id := e.trip(t, map[string]any{"startDate": day(30), "endDate": day(33)})
		return apptest.Request{Vars: map[string]string{"id": id}, Args: map[string]any{"maxDistancePerDay": 120}, Version: e.version(t, id)}
	},
	"trips.delete": func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
	},
	"trips.events": func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
	},
	"trips.upload": func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Args: map[string]any{"maxDistancePerDay": 60}}
	},
	"shares.create": func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": e.trip(t, nil)}}
	},
	"shares.revoke": func(t testing.TB, e env) apptest.Request {
		id, _ := e.shared(t)
		return apptest.Request{Vars: map[string]string{"id": id}}
	},
	"shares.read":     sharedCode,
	"shares.file_gpx": sharedCode,
	"shares.file_fit": sharedCode,
	"trips.file_gpx":  tripWithDays,
	"trips.file_fit":  tripWithDays,
	"places.search": func(t testing.TB, e env) apptest.Request {
		return apptest.Request{Args: map[string]any{"q": "Lyon"}}
	},
	"trips.analyze": tripWithDays,
	"stages.choose_accommodation": func(t testing.TB, e env) apptest.Request {
		return stageReq(t, e, 200, nil, 0, map[string]any{"selectedAccommodationLat": nil, "selectedAccommodationLon": nil})
	},
	"stages.add_waypoint": func(t testing.TB, e env) apptest.Request {
		r := stageReq(t, e, 200, nil, 0, map[string]any{"waypointLat": 0.01, "waypointLon": 0.2})
		r.Version = nil
		return r
	},
	"stages.manual_accommodation": func(t testing.TB, e env) apptest.Request {
		return stageReq(t, e, 200, nil, 0, map[string]any{"name": "Chez Marie", "address": "Lyon", "priceTotal": 45})
	},
	"stages.get": func(t testing.TB, e env) apptest.Request {
		r := stageReq(t, e, 200, nil, 1, nil)
		r.Version = nil
		return r
	},
	"stages.add": func(t testing.TB, e env) apptest.Request {
		return stageReq(t, e, 200, nil, -1, map[string]any{
			"startPoint": map[string]any{"lat": 0, "lon": 1.8}, "endPoint": map[string]any{"lat": 0, "lon": 2.2}})
	},
	"stages.update": func(t testing.TB, e env) apptest.Request {
		return stageReq(t, e, 200, nil, 0, map[string]any{"label": "Over the pass"})
	},
	"stages.move": func(t testing.TB, e env) apptest.Request {
		return stageReq(t, e, 200, nil, 0, map[string]any{"toIndex": 2})
	},
	"stages.delete": func(t testing.TB, e env) apptest.Request {
		return stageReq(t, e, 200, nil, 1, nil)
	},
	"stages.rest_day": func(t testing.TB, e env) apptest.Request {
		return stageReq(t, e, 200, nil, 0, nil)
	},
}

// invalidMerged breaks the merged record of a validated write while every
// argument on its own is well formed, so only the validate guard refuses.
var invalidMerged = map[string]func(t testing.TB, e env, r apptest.Request) apptest.Request{
	"trips.create": func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
		r.Args["startDate"], r.Args["endDate"] = day(40), day(39)
		return r
	},
	"trips.update_settings": func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
		r.Args = map[string]any{"endDate": day(29)} // before the stored start date
		return r
	},
	"trips.upload": func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
		r.Args["startDate"], r.Args["endDate"] = day(40), day(39)
		return r
	},
	"stages.add": func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
		r.Args["position"] = 99
		return r
	},
	"stages.update": func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
		r.Args = map[string]any{"distance": 50, "endPoint": map[string]any{"lat": 0, "lon": 1}}
		return r
	},
	"stages.move": func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
		r.Args["toIndex"] = 99
		return r
	},
	"stages.delete": func(t testing.TB, e env, _ apptest.Request) apptest.Request {
		return stageReq(t, e, 100, nil, 0, nil) // two days: a trip keeps at least two
	},
	"stages.choose_accommodation": func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
		r.Args = map[string]any{"selectedAccommodationLat": 0.0, "selectedAccommodationLon": nil}
		return r
	},
	"stages.add_waypoint": func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
		r.Args = map[string]any{"waypointLat": 60.0, "waypointLon": 100.0}
		return r
	},
	"stages.manual_accommodation": func(_ testing.TB, _ env, r apptest.Request) apptest.Request {
		r.Args["address"] = "Qqqxzzyv nowhere at all"
		return r
	},
	"stages.rest_day": func(t testing.TB, e env, r apptest.Request) apptest.Request {
		// after a rest day is another rest day: refused
		res := e.a.Do(t, "POST", "/trips/"+r.Vars["id"]+"/stages/"+r.Vars["stageId"]+"/rest-day", e.token, nil,
			"If-Match", fmt.Sprintf(`"%d"`, *r.Version))
		require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
		rest := res.JSON(t)["stage"].(map[string]any)["id"].(string)
		v := *r.Version + 1
		return apptest.Request{Vars: map[string]string{"id": r.Vars["id"], "stageId": rest}, Version: &v}
	},
}

// stageLocked is a stage request on a trip that started yesterday.
func stageLocked(which int, args map[string]any) func(t testing.TB, e env, r apptest.Request) apptest.Request {
	return func(t testing.TB, e env, _ apptest.Request) apptest.Request {
		return stageReq(t, e, 200, map[string]any{"startDate": day(-1)}, which, args)
	}
}

// locked returns a request on a record the lock guard must refuse.
var locked = map[string]func(t testing.TB, e env, r apptest.Request) apptest.Request{
	"stages.add":                  stageLocked(-1, map[string]any{"startPoint": map[string]any{"lat": 0, "lon": 1}, "endPoint": map[string]any{"lat": 0, "lon": 1.1}}),
	"stages.update":               stageLocked(0, map[string]any{"label": "x"}),
	"stages.move":                 stageLocked(0, map[string]any{"toIndex": 1}),
	"stages.delete":               stageLocked(0, nil),
	"stages.rest_day":             stageLocked(0, nil),
	"stages.manual_accommodation": stageLocked(0, map[string]any{"name": "Chez Marie", "address": "Lyon"}),
	"stages.choose_accommodation": stageLocked(0, map[string]any{"selectedAccommodationLat": nil, "selectedAccommodationLon": nil}),
	"stages.add_waypoint": func(t testing.TB, e env, r apptest.Request) apptest.Request {
		r = stageLocked(0, map[string]any{"waypointLat": 0.01, "waypointLon": 0.2})(t, e, r)
		r.Version = nil // add_waypoint takes no version: it does not move it
		return r
	},
	"trips.update_settings": func(t testing.TB, e env, r apptest.Request) apptest.Request {
		id := e.trip(t, map[string]any{"startDate": day(-1)})
		// A future start date in the request must not unlock the started trip.
		return apptest.Request{Vars: map[string]string{"id": id}, Args: map[string]any{"startDate": day(60)}, Version: e.version(t, id)}
	},
}

func want(k registry.Kind) string { return registry.ProblemTypeBase + k.String() }

// refusal drives, on both faces, a request that guard g must refuse for op,
// and checks that both refused it with the same problem type.
func refusal(t testing.TB, a *plannertest.App, op *registry.Operation, g string) {
	t.Helper()
	fix, ok := fixtures[op.ID]
	require.True(t, ok, "no fixture for %s: add one to the parity test", op.ID)
	e := newEnv(t, a)
	sessions := map[string]*mcp.ClientSession{e.token: e.mcp}
	both := func(name string, wantType string, r func() apptest.Request) (apptest.Outcome, apptest.Outcome) {
		req := r()
		req.Op = op
		if req.Token == "" && !strings.HasPrefix(name, "no token") {
			req.Token = e.token
		}
		h := a.ViaHTTP(t, req)
		require.Equal(t, wantType, h.Type, "%s %s: HTTP answered %d %s", op.ID, name, h.Status, h.Raw)
		if !op.Tool.IsTool() {
			return h, h // HTTP only, by its declared motive
		}
		req2 := r()
		req2.Op = op
		if req2.Token == "" && !strings.HasPrefix(name, "no token") {
			req2.Token = e.token
		}
		m := a.ViaMCP(t, sessions[req2.Token], req2)
		require.Equal(t, wantType, m.Type, "%s %s: MCP answered %d %s", op.ID, name, m.Status, m.Raw)
		require.Equal(t, h.Status, m.Status, "%s %s: same status on both faces", op.ID, name)
		return h, m
	}
	switch g {
	case guards.NameAuthenticate:
		both("no token", want(registry.KindUnauthenticated), func() apptest.Request { return fix(t, e) })
	case guards.NameScope:
		other := scopes.TripsRead
		if op.Scope == scopes.TripsRead {
			other = scopes.TripsWrite
		}
		weak := newEnv(t, a, other)
		sessions[weak.token] = weak.mcp
		h, m := both("missing scope", want(registry.KindForbidden), func() apptest.Request {
			r := fix(t, e)
			r.Token = weak.token
			return r
		})
		require.Equal(t, string(op.Scope), h.Body["scope"])
		require.Equal(t, string(op.Scope), m.Body["scope"])
	case guards.NameRateLimit:
		r := fix(t, e) // one request, sent again: the limit counts calls, not intents
		r.Op, r.Token = op, e.token
		for i := 0; i < op.RateLimit.Limit; i++ {
			// Every call that reaches the limiter counts, whatever a later
			// guard answers (a repeat of a versioned write is 412).
			res := a.ViaHTTP(t, r)
			require.NotEqual(t, http.StatusTooManyRequests, res.Status, "call %d within the limit: %s", i+1, res.Raw)
		}
		h, _ := both("over the limit", want(registry.KindRateLimited), func() apptest.Request { return fix(t, e) })
		require.NotEmpty(t, h.Body["retryAfter"])
	case guards.NameOwner:
		foreign := newEnv(t, a)
		hu, mu := both("unknown id", want(registry.KindNotFound), func() apptest.Request {
			r := fix(t, e)
			r.Vars[op.Owner.Var] = uuid.NewString()
			return r
		})
		foreignID := foreign.trip(t, nil)
		hf, mf := both("someone else's id", want(registry.KindNotFound), func() apptest.Request {
			r := fix(t, e)
			r.Vars[op.Owner.Var] = foreignID
			return r
		})
		require.Equal(t, string(hu.Raw), string(hf.Raw), "unknown and foreign give byte-identical HTTP bodies")
		require.Equal(t, string(mu.Raw), string(mf.Raw), "unknown and foreign give identical tool errors")
		require.NotContains(t, string(hf.Raw)+string(mf.Raw), foreignID, "the id is never echoed")
	case guards.NameArguments:
		h, m := both("unpublished argument", want(registry.KindInvalid), func() apptest.Request {
			r := fix(t, e)
			if r.Args == nil {
				r.Args = map[string]any{}
			}
			r.Args["zzUnpublished"] = 1
			return r
		})
		require.Contains(t, fields(h.Body), "zzUnpublished")
		require.Contains(t, fields(m.Body), "zzUnpublished")
	case guards.NameValidate:
		breakIt, ok := invalidMerged[op.ID]
		require.True(t, ok, "no invalid-merged scenario for %s", op.ID)
		h, m := both("invalid merged record", want(registry.KindInvalid), func() apptest.Request {
			return breakIt(t, e, fix(t, e))
		})
		require.Equal(t, fields(h.Body), fields(m.Body))
	case guards.NameLock:
		lk, ok := locked[op.ID]
		require.True(t, ok, "no locked scenario for %s", op.ID)
		both("locked record", want(registry.KindLocked), func() apptest.Request { return lk(t, e, fix(t, e)) })
	case guards.NamePrecondition:
		both("missing version", want(registry.KindPreconditionRequired), func() apptest.Request {
			r := fix(t, e)
			r.Version = nil
			return r
		})
		both("stale version", want(registry.KindPreconditionFailed), func() apptest.Request {
			r := fix(t, e)
			stale := *r.Version - 1
			r.Version = &stale
			return r
		})
	case guards.NameConfirm:
		var ids []string
		h, m := both("no confirmation token", operations.ConfirmationType, func() apptest.Request {
			r := fix(t, e)
			ids = append(ids, r.Vars[op.Owner.Var])
			return r
		})
		require.NotEmpty(t, h.Body["confirmationToken"])
		require.NotEmpty(t, m.Body["confirmationToken"])
		for _, id := range ids {
			st := a.Do(t, "GET", "/trips/"+id, e.token, nil)
			require.Equal(t, http.StatusOK, st.Status, "nothing was written without a token")
			require.EqualValues(t, 1, st.JSON(t)["version"], "nothing was written without a token")
		}
		both("forged token", want(registry.KindConflict), func() apptest.Request {
			r := fix(t, e)
			r.Confirm = "forged-" + uuid.NewString()
			return r
		})
	case guards.NameIdempotency:
		both("malformed key", want(registry.KindMalformed), func() apptest.Request {
			r := fix(t, e)
			r.Key = "too-short"
			return r
		})
		k := key()
		r := fix(t, e)
		r.Op, r.Token, r.Key = op, e.token, k
		require.Less(t, a.ViaHTTP(t, r).Status, 300)
		both("key reused with another body", want(registry.KindConflict), func() apptest.Request {
			r := fix(t, e)
			r.Key = k
			r.Args["maxDistancePerDay"] = 150
			return r
		})
	default:
		t.Fatalf("no refusal scenario for guard %s", g)
	}
}

// nonRefusing are the guards that refuse nothing themselves; what they do is
// proven through the guards that judge their result.
var nonRefusing = map[string]string{
	guards.NameRead:  "loads Previous; proven by the lock scenario (a future start date cannot unlock a started trip)",
	guards.NameMerge: "builds Merged; proven by the validate scenario (the merged record is judged)",
}

// TestParity drives, for every operation and every guard it declares, a
// request this guard must refuse, over HTTP and over MCP.
func TestParity(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	for _, op := range a.Server.Registry.Operations() {
		for _, g := range guards.Order {
			if !guards.Applies(g, op) {
				continue
			}
			if _, ok := nonRefusing[g]; ok {
				continue
			}
			t.Run(op.ID+"/"+g, func(t *testing.T) {
				t.Parallel()
				refusal(t, a, op, g)
			})
		}
	}
}

// recorder stands in for a test to observe a scenario failing.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any)                 { r.failures = append(r.failures, fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); r.FailNow() }
func (r *recorder) FailNow()                          { runtime.Goexit() }

func runRecorded(t *testing.T, f func(tb testing.TB)) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); f(r) }()
	<-done
	return r.failures
}

// TestParityFailsOnABrokenDeclaration breaks declarations on purpose, in a
// running application, and checks the parity scenarios notice.
func TestParityFailsOnABrokenDeclaration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		op, guard string
		breakIt   func(op *registry.Operation)
	}{
		{"trips.update_settings", guards.NameLock, func(op *registry.Operation) { op.Lock = registry.NoLock }},
		{"trips.update_settings", guards.NamePrecondition, func(op *registry.Operation) { op.Precondition = registry.NoPrecondition }},
		{"trips.delete", guards.NameConfirm, func(op *registry.Operation) { op.Confirm = registry.NoConfirm }},
		{"trips.get", guards.NameOwner, func(op *registry.Operation) {
			op.Owner = registry.ByURIVariable("id", func(_ context.Context, _, _ string) (bool, error) { return true, nil })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.op+"/"+tt.guard, func(t *testing.T) {
			t.Parallel()
			a := plannertest.New(t)
			op, ok := a.Server.Registry.Lookup(tt.op)
			require.True(t, ok)
			require.Empty(t, runRecorded(t, func(tb testing.TB) { refusal(tb, a, op, tt.guard) }), "the intact declaration passes")
			tt.breakIt(op)
			require.NotEmpty(t, runRecorded(t, func(tb testing.TB) { refusal(tb, a, op, tt.guard) }), "the broken declaration is caught")
		})
	}
}
