package planner_test

import (
	"bytes"
	"encoding/json"
	"html/template"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
)

// browserAccept is what a browser asks for when a person opens a link.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

// sharedFixture is a trip imported from a route address, computed, and
// shared: everything a page must not show, and what it must.
type sharedFixture struct {
	a        *plannertest.App
	owner    conformance.User
	id, code string
	source   string
	share    map[string]any
	dayIDs   []string
	dayCount int
}

func newSharedFixture(t *testing.T, a *plannertest.App) sharedFixture {
	t.Helper()
	u := conformance.NewUser(t, a.App)
	e := env{a: a, token: u.Token}
	f := sharedFixture{a: a, owner: u, source: plannertest.StravaRoute(240)}
	f.id = e.trip(t, map[string]any{"sourceUrl": f.source, "startDate": day(20), "endDate": day(22)})
	a.WaitSettled(t, u.Token, f.id)
	detail := a.Do(t, "GET", "/trips/"+f.id+"/detail", u.Token, nil)
	require.Equal(t, http.StatusOK, detail.Status, string(detail.Body))
	for _, d := range detail.JSON(t)["days"].([]any) {
		f.dayIDs = append(f.dayIDs, d.(map[string]any)["id"].(string))
	}
	f.dayCount = len(f.dayIDs)
	require.GreaterOrEqual(t, f.dayCount, 2, "the fixture route makes several days")
	res := a.Do(t, "POST", "/trips/"+f.id+"/share", u.Token, nil)
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	f.share = res.JSON(t)
	f.code = f.share["shortCode"].(string)
	return f
}

// open reads path without a token, as a visitor does, asking for accept.
func (f sharedFixture) open(t *testing.T, path, accept string) *apptest.Response {
	t.Helper()
	var headers []string
	if accept != "" {
		headers = []string{"Accept", accept}
	}
	return f.a.Do(t, "GET", path, "", nil, headers...)
}

// TestTheSharePageShowsTheTripAndNothingOfItsOwner opens a share link as a
// browser does: the page shows the title, the dates, one row per day, the
// drawing and the profile, links to the files that work, and no id, source
// address or email anywhere in the document.
func TestTheSharePageShowsTheTripAndNothingOfItsOwner(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	f := newSharedFixture(t, a)

	page := f.open(t, "/s/"+f.code, browserAccept)
	require.Equal(t, http.StatusOK, page.Status, string(page.Body))
	require.Equal(t, "text/html; charset=utf-8", page.Header.Get("Content-Type"))
	require.Contains(t, page.Header.Values("Vary"), "Accept", "a cache keeps the page and the JSON apart")
	csp := page.Header.Get("Content-Security-Policy")
	require.Contains(t, csp, "default-src 'none'")
	require.NotContains(t, csp, "unsafe-inline", "the page's one style sheet is allowed by its hash")
	require.NotContains(t, csp, "script-src", "the page runs no script")
	require.Contains(t, csp, "frame-ancestors 'none'")
	require.Equal(t, "DENY", page.Header.Get("X-Frame-Options"), "beside frame-ancestors, for browsers that do not read it")
	html := string(page.Body)

	require.Contains(t, html, "<title>")
	require.Contains(t, html, `id="dates"`)
	require.Equal(t, f.dayCount, strings.Count(html, `class="day-row"`), "one row per day")
	require.Equal(t, f.dayCount, strings.Count(html, `<polyline class="day"`), "one line per day on the map")
	require.Contains(t, html, `<svg id="profile"`)
	require.NotContains(t, html, "<script")
	require.NotRegexp(t, regexp.MustCompile(`(?i)(src|href)="(https?:)?//`+`[^"]*`), strings.ReplaceAll(html, f.a.URL, ""),
		"nothing is loaded from elsewhere: every link is this server's")

	for _, link := range []struct{ href, contentType string }{
		{f.a.URL + "/s/" + f.code + ".gpx", "application/gpx+xml"},
		{f.a.URL + "/s/" + f.code + ".fit", "application/vnd.ant.fit"},
		{f.a.URL + "/s/" + f.code + "/stages/0.gpx", "application/gpx+xml"},
		{f.a.URL + "/s/" + f.code + "/stages/1.fit", "application/vnd.ant.fit"},
	} {
		require.Contains(t, html, `href="`+link.href+`"`, "absolute download links")
		res := f.open(t, strings.TrimPrefix(link.href, f.a.URL), "")
		require.Equal(t, http.StatusOK, res.Status, link.href)
		require.Equal(t, link.contentType, res.Header.Get("Content-Type"), link.href)
	}

	// What the page must never show: ids, the owner's source address, the
	// owner's email, the share's secret.
	secrets := append([]string{f.id, f.source, f.owner.Email, f.share["id"].(string), f.share["token"].(string)}, f.dayIDs...)
	for _, s := range secrets {
		require.NotContains(t, html, s)
	}
	require.NotContains(t, html, "strava.com", "not even the source's host")
}

// TestTheShareAddressNegotiates keeps today's JSON for API clients, and
// gives a visitor a page, not a problem document, for a link that leads
// nowhere.
func TestTheShareAddressNegotiates(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	f := newSharedFixture(t, a)

	for _, accept := range []string{"", "application/json", "*/*", "text/html;q=0.5, application/json"} {
		res := f.open(t, "/s/"+f.code, accept)
		require.Equal(t, http.StatusOK, res.Status, accept)
		require.Equal(t, "application/json", res.Header.Get("Content-Type"), "Accept %q keeps the JSON", accept)
		require.Contains(t, string(res.Body), `"id":"`+f.id+`"`, "the TripDetail of the JSON read, as before")
	}

	unknown := f.open(t, "/s/Zz9_unknwn", browserAccept)
	require.Equal(t, http.StatusNotFound, unknown.Status)
	require.Equal(t, "text/html; charset=utf-8", unknown.Header.Get("Content-Type"))
	require.Contains(t, string(unknown.Body), "not shared here")
	require.NotContains(t, string(unknown.Body), "list yours", "a visitor has nothing to list")

	res := a.Do(t, "DELETE", "/trips/"+f.id+"/share", f.owner.Token, nil)
	require.Equal(t, http.StatusConflict, res.Status, "unsharing asks first")
	res = a.Do(t, "DELETE", "/trips/"+f.id+"/share", f.owner.Token, nil,
		operations.HeaderConfirmationToken, res.Header.Get(operations.HeaderConfirmationToken))
	require.Equal(t, http.StatusNoContent, res.Status, string(res.Body))
	revoked := f.open(t, "/s/"+f.code, browserAccept)
	require.Equal(t, http.StatusNotFound, revoked.Status)
	require.Equal(t, unknown.Body, revoked.Body, "revoked and unknown read alike")
	for _, path := range []string{"/s/" + f.code, "/s/" + f.code + ".gpx", "/s/" + f.code + ".fit", "/s/" + f.code + "/route",
		"/s/" + f.code + "/stages/0.gpx", "/s/" + f.code + "/stages/1.fit"} {
		require.Equal(t, http.StatusNotFound, f.open(t, path, "").Status, "revocation is immediate: %s", path)
	}
}

// TestShareAddressesRefuseMalformedInput names the part of the address that
// cannot be read, and finds nothing at the others.
func TestShareAddressesRefuseMalformedInput(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	f := newSharedFixture(t, a)

	for _, c := range []struct {
		path   string
		status int
		field  string
	}{
		{"/s/a*b", http.StatusBadRequest, "code"},
		{"/s/a%20b/route", http.StatusBadRequest, "code"},
		{"/s/%C3%A9t%C3%A9.gpx", http.StatusBadRequest, "code"},
		{"/s/" + f.code + ".kml", http.StatusBadRequest, "code"}, // not a known file: the code holds a dot
		{"/s/" + f.code + "/stages/x.gpx", http.StatusBadRequest, "index"},
		{"/s/" + f.code + "/stages/-1.gpx", http.StatusBadRequest, "index"},
		{"/s/" + f.code + "/stages/01.gpx", http.StatusBadRequest, "index"},
		{"/s/" + f.code + "/stages/99.gpx", http.StatusNotFound, ""},
		{"/s/" + f.code + "/stages/0", http.StatusNotFound, ""},
		{"/s/" + f.code + "/trip.gpx", http.StatusNotFound, ""}, // the old address answers no more
	} {
		res := f.open(t, c.path, "")
		require.Equal(t, c.status, res.Status, "%s: %s", c.path, res.Body)
		if c.field != "" {
			require.Equal(t, "application/problem+json", res.Header.Get("Content-Type"), c.path)
			require.Contains(t, string(res.Body), `"field":"`+c.field+`"`, "%s names the field", c.path)
		}
	}
	page := f.open(t, "/s/a*b", browserAccept)
	require.Equal(t, http.StatusBadRequest, page.Status)
	require.Contains(t, string(page.Body), "not a share link", "a visitor reads why")
}

// TestTripFilesAnswerBesideTheTripsAddress serves the files of ADR-074 at
// /trips/{id}.gpx and .fit beside the JSON of /trips/{id}, with the same
// guards: the owner reads them, anyone else is not found, nobody without a
// token is unauthenticated.
func TestTripFilesAnswerBesideTheTripsAddress(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	f := newSharedFixture(t, a)
	tok := f.owner.Token
	other := conformance.NewUser(t, a.App)

	state := a.Do(t, "GET", "/trips/"+f.id, tok, nil)
	require.Equal(t, http.StatusOK, state.Status)
	require.Equal(t, f.id, state.JSON(t)["id"], "the canonical JSON still answers")

	g := a.Do(t, "GET", "/trips/"+f.id+".gpx", tok, nil)
	require.Equal(t, http.StatusOK, g.Status, string(g.Body))
	require.Equal(t, "application/gpx+xml", g.Header.Get("Content-Type"))
	route, err := gpx.Parse(bytes.NewReader(g.Body))
	require.NoError(t, err, "the file is GPX a planner reads back")
	require.GreaterOrEqual(t, len(route.Points), 2)

	fit := a.Do(t, "GET", "/trips/"+f.id+".fit", tok, nil)
	require.Equal(t, http.StatusOK, fit.Status)
	require.Equal(t, "application/vnd.ant.fit", fit.Header.Get("Content-Type"))
	require.Equal(t, ".FIT", string(fit.Body[8:12]), "a FIT header")

	unknown := a.Do(t, "GET", "/trips/"+uuid.NewString()+".gpx", tok, nil)
	foreign := a.Do(t, "GET", "/trips/"+f.id+".gpx", other.Token, nil)
	require.Equal(t, http.StatusNotFound, unknown.Status)
	require.Equal(t, http.StatusNotFound, foreign.Status)
	require.Equal(t, stripRequestID(unknown.Body), stripRequestID(foreign.Body), "unknown and foreign alike")
	require.NotContains(t, string(foreign.Body), f.id)
	require.Equal(t, http.StatusUnauthorized, a.Do(t, "GET", "/trips/"+f.id+".fit", "", nil).Status)
	require.Equal(t, http.StatusNotFound, a.Do(t, "GET", "/trips/"+f.id+".kml", tok, nil).Status)
	require.Equal(t, http.StatusNotFound, a.Do(t, "GET", "/trips/"+f.id+"/trip.gpx", tok, nil).Status, "the old address answers no more")

	// A trip without days has no file, while its JSON read answers.
	u := conformance.NewUser(t, a.App)
	e := env{a: a, token: u.Token}
	empty := e.trip(t, map[string]any{"sourceUrl": plannertest.StravaRoute(404)}) // a route the provider does not have
	a.WaitSettled(t, u.Token, empty)
	require.Equal(t, http.StatusOK, a.Do(t, "GET", "/trips/"+empty, u.Token, nil).Status)
	require.Equal(t, http.StatusNotFound, a.Do(t, "GET", "/trips/"+empty+".gpx", u.Token, nil).Status)
	require.Equal(t, http.StatusNotFound, a.Do(t, "GET", "/trips/"+empty+".fit", u.Token, nil).Status)
	r := a.Do(t, "GET", "/trips/"+empty+"/route", u.Token, nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Empty(t, r.JSON(t)["stages"], "no days, no lines")
}

// TestRouteGeometryAndDayFiles reads the lines of the days, for the owner
// and behind the code, and a day's files; a started trip still answers
// every read (it is locked for writes only).
func TestRouteGeometryAndDayFiles(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	u := conformance.NewUser(t, a.App)
	e := env{a: a, token: u.Token}
	id, days, _ := e.days(t, 200, map[string]any{"startDate": day(-1)}) // started yesterday: locked
	share := a.Do(t, "POST", "/trips/"+id+"/share", u.Token, nil)
	require.Equal(t, http.StatusCreated, share.Status, string(share.Body))
	code := share.JSON(t)["shortCode"].(string)

	own := a.Do(t, "GET", "/trips/"+id+"/route", u.Token, nil)
	require.Equal(t, http.StatusOK, own.Status, string(own.Body))
	public := a.Do(t, "GET", "/s/"+code+"/route", "", nil)
	require.Equal(t, http.StatusOK, public.Status, string(public.Body))
	require.Equal(t, own.Body, public.Body, "the same lines behind the code")
	body := own.JSON(t)
	require.Equal(t, id, body["id"])
	lines := body["stages"].([]any)
	require.Len(t, lines, len(days))
	for i, l := range lines {
		line := l.(map[string]any)
		require.EqualValues(t, i+1, line["dayNumber"])
		pts := line["geometry"].([]any)
		require.GreaterOrEqual(t, len(pts), 2, "a riding day is a line")
		for _, k := range []string{"lat", "lon", "ele"} {
			require.Contains(t, pts[0].(map[string]any), k)
		}
	}

	for _, format := range []struct{ ext, contentType string }{{"gpx", "application/gpx+xml"}, {"fit", "application/vnd.ant.fit"}} {
		res := a.Do(t, "GET", "/trips/"+id+"/stages/"+days[1]+"/export."+format.ext, u.Token, nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		require.Equal(t, format.contentType, res.Header.Get("Content-Type"))
		require.Contains(t, res.Header.Get("Content-Disposition"), "day-2."+format.ext)
		pub := a.Do(t, "GET", "/s/"+code+"/stages/1."+format.ext, "", nil)
		require.Equal(t, http.StatusOK, pub.Status)
		require.Equal(t, res.Body, pub.Body, "the same day behind the code")
	}
	g := a.Do(t, "GET", "/trips/"+id+"/stages/"+days[1]+"/export.gpx", u.Token, nil)
	require.Contains(t, string(g.Body), "<name>Stage 2</name>", "a day without a label is named by its number")
	route, err := gpx.Parse(bytes.NewReader(g.Body))
	require.NoError(t, err)
	require.Len(t, route.Points, len(lines[1].(map[string]any)["geometry"].([]any)), "the day's own points")

	missing := a.Do(t, "GET", "/trips/"+id+"/stages/"+uuid.NewString()+"/export.gpx", u.Token, nil)
	require.Equal(t, http.StatusNotFound, missing.Status)
	require.Contains(t, string(missing.Body), "stage not found")
	require.Equal(t, http.StatusOK, a.Do(t, "GET", "/trips/"+id+".gpx", u.Token, nil).Status, "a locked trip exports")
	require.Equal(t, http.StatusOK, a.Do(t, "GET", "/trips/"+id+"/share", u.Token, nil).Status, "a locked trip's share reads")
}

// TestTheOwnerReadsTheActiveShare: none is 404; the active one carries
// absolute addresses and is where the creation's Location points; after a
// revocation it is 404 again, and a new share is a new code.
func TestTheOwnerReadsTheActiveShare(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	u := conformance.NewUser(t, a.App)
	e := env{a: a, token: u.Token}
	id, _, _ := e.days(t, 120, nil)

	none := a.Do(t, "GET", "/trips/"+id+"/share", u.Token, nil)
	require.Equal(t, http.StatusNotFound, none.Status)
	require.Contains(t, string(none.Body), "not shared")

	created := a.Do(t, "POST", "/trips/"+id+"/share", u.Token, nil)
	require.Equal(t, http.StatusCreated, created.Status)
	require.True(t, strings.HasSuffix(created.Header.Get("Location"), "/trips/"+id+"/share"), created.Header.Get("Location"))
	c := created.JSON(t)
	code := c["shortCode"].(string)
	require.Regexp(t, `^[A-Za-z0-9_-]{8}$`, code)
	require.Equal(t, a.URL+"/s/"+code, c["url"], "absolute, from public_url")
	require.Equal(t, a.URL+"/s/"+code+".gpx", c["gpxUrl"])
	require.Equal(t, a.URL+"/s/"+code+".fit", c["fitUrl"])

	read := a.Do(t, "GET", "/trips/"+id+"/share", u.Token, nil)
	require.Equal(t, http.StatusOK, read.Status)
	r := read.JSON(t)
	for _, k := range []string{"id", "token", "shortCode", "url", "gpxUrl", "fitUrl", "createdAt"} {
		require.Equal(t, c[k], r[k], k)
	}
	require.Equal(t, true, r["active"])
	res := a.Do(t, "GET", strings.TrimPrefix(r["gpxUrl"].(string), a.URL), "", nil)
	require.Equal(t, http.StatusOK, res.Status, "the link works without a token")

	codes := map[string]bool{code: true}
	for cycle := range 2 { // revoked rows never block a new share
		ask := a.Do(t, "DELETE", "/trips/"+id+"/share", u.Token, nil)
		require.Equal(t, http.StatusNoContent, a.Do(t, "DELETE", "/trips/"+id+"/share", u.Token, nil,
			operations.HeaderConfirmationToken, ask.Header.Get(operations.HeaderConfirmationToken)).Status)
		require.Equal(t, http.StatusNotFound, a.Do(t, "GET", "/trips/"+id+"/share", u.Token, nil).Status)
		again := a.Do(t, "POST", "/trips/"+id+"/share", u.Token, nil)
		require.Equal(t, http.StatusCreated, again.Status, "cycle %d", cycle)
		next := again.JSON(t)["shortCode"].(string)
		require.False(t, codes[next], "a new share is a new code")
		codes[next] = true
		require.Equal(t, next, a.Do(t, "GET", "/trips/"+id+"/share", u.Token, nil).JSON(t)["shortCode"], "the active one is read")
	}
}

// stripRequestID drops the request's id from a problem body, the one part
// that differs between two identical refusals.
func stripRequestID(b []byte) string {
	return regexp.MustCompile(`"requestId":"[^"]*"`).ReplaceAllString(string(b), "")
}

// TestShareAddressesFollowThePublicURL: with public_url set, the addresses
// handed to the owner and the page's links are under it, wherever the
// server listens. The server is called through its handler: the public
// address resolves nowhere here.
func TestShareAddressesFollowThePublicURL(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t, func(_ testing.TB, c *config.Config) { c.PublicURL = "https://cairn.example/" })
	tok := a.Token(t, "public-url@example.com", scopes.TripsRead, scopes.TripsWrite)
	call := func(method, path, accept string, body ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, "https://cairn.example"+path, strings.NewReader(strings.Join(body, "")))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(operations.HeaderIdempotencyKey, key())
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		rec := httptest.NewRecorder()
		a.Server.Handler.ServeHTTP(rec, req)
		return rec
	}
	created := call(http.MethodPost, "/trips", "", `{"sourceUrl":"`+plannertest.StravaRoute(120)+`"}`)
	require.Equal(t, http.StatusAccepted, created.Code, created.Body.String())
	var trip map[string]any
	require.NoError(t, json.Unmarshal(created.Body.Bytes(), &trip))
	id := trip["id"].(string)
	require.Eventually(t, func() bool { // the days are computed in the background
		var st map[string]any
		_ = json.Unmarshal(call(http.MethodGet, "/trips/"+id, "").Body.Bytes(), &st)
		cs, _ := st["computationStatus"].(map[string]any)
		return cs["stages"] == "done"
	}, 60*time.Second, 50*time.Millisecond)
	res := call(http.MethodPost, "/trips/"+id+"/share", "")
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	var share map[string]any
	require.NoError(t, json.Unmarshal(res.Body.Bytes(), &share))
	code := share["shortCode"].(string)
	require.Equal(t, "https://cairn.example/s/"+code, share["url"])
	require.Equal(t, "https://cairn.example/s/"+code+".gpx", share["gpxUrl"])
	require.Equal(t, "https://cairn.example/s/"+code+".fit", share["fitUrl"])

	page := call(http.MethodGet, "/s/"+code, browserAccept)
	require.Equal(t, http.StatusOK, page.Code)
	require.Contains(t, page.Body.String(), `href="https://cairn.example/s/`+code+`.gpx"`)
	require.NotContains(t, page.Body.String(), "127.0.0.1", "never the address the server happens to listen at")
}

// TestTheSharePageSaysTheAlertsInWords: a hilly trip, analysed, shows each
// day's alerts as their messages, and its profile spans the climbing.
func TestTheSharePageSaysTheAlertsInWords(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	u := conformance.NewUser(t, a.App)
	points := plannertest.Line(160)
	for i := range points {
		points[i].Ele = 700 + 600*math.Sin(float64(i)/6) // a pass every few kilometres
	}
	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: "Over the hills", Points: points}))
	op, ok := a.Server.Registry.Lookup("trips.upload")
	require.True(t, ok)
	out := a.ViaHTTP(t, apptest.Request{Op: op, Token: u.Token, Key: key(),
		Files: map[string]apptest.File{"gpxFile": {Name: "hills.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}})
	require.Equal(t, http.StatusAccepted, out.Status, string(out.Raw))
	id := out.Body["id"].(string)
	a.WaitSettled(t, u.Token, id)
	first := out.Body["days"].([]any)[0].(map[string]any)["id"].(string)
	detail := a.Do(t, "GET", "/trips/"+id+"/stages/"+first+"/detail", u.Token, nil)
	require.Equal(t, http.StatusOK, detail.Status, string(detail.Body))
	alerts, _ := detail.JSON(t)["alertDetails"].([]any)
	require.NotEmpty(t, alerts, "a day of passes has something to watch")

	share := a.Do(t, "POST", "/trips/"+id+"/share", u.Token, nil)
	require.Equal(t, http.StatusCreated, share.Status)
	page := a.Do(t, "GET", "/s/"+share.JSON(t)["shortCode"].(string), "", nil, "Accept", browserAccept)
	require.Equal(t, http.StatusOK, page.Status)
	html := string(page.Body)
	for _, al := range alerts {
		msg := al.(map[string]any)["message"].(string)
		require.Contains(t, html, template.HTMLEscapeString(msg), "the alert in words")
		require.NotContains(t, html, ">"+al.(map[string]any)["code"].(string)+"<", "not as a code")
	}
	require.Contains(t, html, "<title>Over the hills</title>")
	require.Regexp(t, `>1[23]\d\d m</text>`, html, "the profile's top is the passes' height")
}

// TestSharedReadsAreKeptByRevision: every public read behind a share code
// carries a strong ETag naming the trip's revision; If-None-Match naming
// it answers 304 without a body; the answer read again is the same bytes;
// a change of the trip moves the tag and shows the change; a revoked share
// is 404 whatever tag is sent.
func TestSharedReadsAreKeptByRevision(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		f := newSharedFixture(t, a)
		reads := []struct{ path, accept string }{
			{"/s/" + f.code, browserAccept},
			{"/s/" + f.code, "application/json"},
			{"/s/" + f.code + "/route", ""},
			{"/s/" + f.code + ".gpx", ""},
			{"/s/" + f.code + ".fit", ""},
			{"/s/" + f.code + "/stages/0.gpx", ""},
			{"/s/" + f.code + "/stages/1.fit", ""},
		}
		tags := map[string]bool{}
		first := map[int]*apptest.Response{}
		for i, r := range reads {
			res := f.open(t, r.path, r.accept)
			require.Equal(t, http.StatusOK, res.Status, "%s: %s", r.path, res.Body)
			tag := res.Header.Get("ETag")
			require.Regexp(t, `^"[^"]+"$`, tag, "%s %s: a strong tag", r.path, r.accept)
			require.Equal(t, "no-cache", res.Header.Get("Cache-Control"), "%s: kept only while revalidated", r.path)
			require.False(t, tags[tag], "%s %s: each answer has its own tag", r.path, r.accept)
			tags[tag] = true
			first[i] = res

			same := f.a.Do(t, "GET", r.path, "", nil, "Accept", r.accept, "If-None-Match", tag)
			require.Equal(t, http.StatusNotModified, same.Status, "%s: %s", r.path, same.Body)
			require.Empty(t, same.Body)
			require.Equal(t, tag, same.Header.Get("ETag"))

			again := f.open(t, r.path, r.accept)
			require.Equal(t, http.StatusOK, again.Status)
			require.Equal(t, tag, again.Header.Get("ETag"))
			require.Equal(t, string(res.Body), string(again.Body), "%s: the kept answer is the answer", r.path)
		}

		// The owner renames the first day: the revision moves, every tag with it.
		detail := a.Do(t, "GET", "/trips/"+f.id+"/detail", f.owner.Token, nil)
		require.Equal(t, http.StatusOK, detail.Status)
		renamed := a.Do(t, http.MethodPatch, "/trips/"+f.id+"/stages/"+f.dayIDs[0], f.owner.Token,
			map[string]any{"label": "Renamed by its owner"}, "If-Match", detail.Header.Get("ETag"))
		require.Less(t, renamed.Status, 300, string(renamed.Body))
		for i, r := range reads {
			old := first[i].Header.Get("ETag")
			res := f.a.Do(t, "GET", r.path, "", nil, "Accept", r.accept, "If-None-Match", old)
			require.Equal(t, http.StatusOK, res.Status, "%s: the trip changed: %s", r.path, res.Body)
			require.NotEqual(t, old, res.Header.Get("ETag"), r.path)
			if i == 0 {
				require.Contains(t, string(res.Body), "Renamed by its owner", "the page shows the change")
			}
		}

		revoke := a.Do(t, http.MethodDelete, "/trips/"+f.id+"/share", f.owner.Token, nil)
		if revoke.Status == http.StatusConflict { // the revocation asks to be confirmed
			revoke = a.Do(t, http.MethodDelete, "/trips/"+f.id+"/share", f.owner.Token, nil,
				operations.HeaderConfirmationToken, revoke.JSON(t)["confirmationToken"].(string))
		}
		require.Less(t, revoke.Status, 300, string(revoke.Body))
		for i, r := range reads {
			res := f.a.Do(t, "GET", r.path, "", nil, "Accept", r.accept, "If-None-Match", first[i].Header.Get("ETag"))
			require.Equal(t, http.StatusNotFound, res.Status, "%s: a revoked share is gone, whatever tag is held", r.path)
		}
	})
}

// TestSharedReadsAreLimitedPerAddress: one client address may read a
// share's page trips.PublicReadsPerMinute times a minute; the next read is
// 429 with Retry-After, while another address still reads it.
func TestSharedReadsAreLimitedPerAddress(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	f := newSharedFixture(t, a)
	for i := range trips.PublicReadsPerMinute {
		res := a.Do(t, "GET", "/s/"+f.code, "", nil, "Accept", browserAccept, "X-Forwarded-For", "198.51.100.7")
		require.Equal(t, http.StatusOK, res.Status, "read %d: %s", i+1, res.Body)
	}
	over := a.Do(t, "GET", "/s/"+f.code, "", nil, "Accept", browserAccept, "X-Forwarded-For", "198.51.100.7")
	require.Equal(t, http.StatusTooManyRequests, over.Status, string(over.Body))
	require.NotEmpty(t, over.Header.Get("Retry-After"))
	other := a.Do(t, "GET", "/s/"+f.code, "", nil, "Accept", browserAccept, "X-Forwarded-For", "198.51.100.8")
	require.Equal(t, http.StatusOK, other.Status, "another address is not limited by the first")
}

// TestAnUnknownShareSaysNothingOfResources: an anonymous read of an
// unknown code, on every public address, is a 404 that speaks of the
// address, not of the caller's resources (a visitor has none), in each
// language, and the same as a revoked code's.
func TestAnUnknownShareSaysNothingOfResources(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	f := newSharedFixture(t, a)
	revoke := a.Do(t, http.MethodDelete, "/trips/"+f.id+"/share", f.owner.Token, nil)
	if revoke.Status == http.StatusConflict {
		revoke = a.Do(t, http.MethodDelete, "/trips/"+f.id+"/share", f.owner.Token, nil,
			operations.HeaderConfirmationToken, revoke.JSON(t)["confirmationToken"].(string))
	}
	require.Less(t, revoke.Status, 300, string(revoke.Body))
	for _, suffix := range []string{"", "/route", ".gpx", ".fit", "/stages/0.gpx"} {
		for _, lang := range []string{"en", "fr"} {
			var bodies []string
			for _, code := range []string{"unknownCode1", f.code} {
				res := a.Do(t, "GET", "/s/"+code+suffix, "", nil, "Accept", "application/json", "Accept-Language", lang, "X-Request-Id", "unknown-share")
				require.Equal(t, http.StatusNotFound, res.Status, "%s%s: %s", code, suffix, res.Body)
				require.NotContains(t, string(res.Body), "your resources", suffix)
				require.NotContains(t, string(res.Body), "vos ressources", suffix)
				bodies = append(bodies, string(res.Body))
			}
			require.Equal(t, bodies[0], bodies[1], "%s, %s: an unknown code and a revoked one answer alike", suffix, lang)
		}
	}
}
