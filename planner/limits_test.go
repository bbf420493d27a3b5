package planner_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/routefixture"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage/storagetest"
)

// TestBodyLimitIsTheSameOnBothFaces: a body over max_body is refused with
// the same 413 problem on an HTTP operation and on /mcp, before anything
// reads it; one just under the limit reaches the guards on both.
func TestBodyLimitIsTheSameOnBothFaces(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	tok := a.Token(t, "large@example.com")
	limit := int(a.Config.MaxBody)
	big := `{"title":"` + strings.Repeat("x", limit) + `"}`
	tests := []struct {
		face, method, path string
		headers            []string
	}{
		{"http", http.MethodPost, "/trips", []string{"Idempotency-Key", "large-body-key-0001"}},
		{"mcp", http.MethodPost, "/mcp", []string{"Accept", "application/json, text/event-stream"}},
	}
	var bodies []string
	for _, tt := range tests {
		// One request id for both, so the bodies may be compared whole.
		res := a.Do(t, tt.method, tt.path, tok, big, append(tt.headers, "X-Request-Id", "body-limit")...)
		require.Equal(t, http.StatusRequestEntityTooLarge, res.Status, "%s: %s", tt.face, res.Body)
		p := res.JSON(t)
		require.Equal(t, registry.ProblemTypeBase+registry.KindTooLarge.String(), p["type"], tt.face)
		bodies = append(bodies, string(res.Body))
	}
	require.Equal(t, bodies[0], bodies[1], "the same refusal on both faces")

	// Just under the limit, the MCP endpoint reads the request: a JSON-RPC
	// answer, not a 413.
	pad := strings.Repeat(" ", limit-200)
	res := a.Do(t, http.MethodPost, "/mcp", tok, `{"jsonrpc":"2.0","id":1,"method":"ping"`+pad+`}`, "Accept", "application/json, text/event-stream")
	require.NotEqual(t, http.StatusRequestEntityTooLarge, res.Status, string(res.Body))
}

// everyPointKept is n points a simplification keeps all of: 50 m steps
// north, each 40 m east or west of the last, about 94 m of riding apiece.
func everyPointKept(n int) []geo.Point {
	out := make([]geo.Point, n)
	for i := range out {
		east := 0.0
		if i%2 == 1 {
			east = 40
		}
		out[i] = geo.Point{Lat: 40 + float64(i)*50/111_320, Lon: 4 + east/85_400, Ele: 100}
	}
	return out
}

// gpxOf is a one-track GPX file of points.
func gpxOf(t testing.TB, name string, points []geo.Point) []byte {
	t.Helper()
	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: name, Points: points}))
	return g.Bytes()
}

// uploadFile sends a GPX file with settings on the HTTP face.
func (e env) uploadFile(t testing.TB, file []byte, settings map[string]any) apptest.Outcome {
	t.Helper()
	op, _ := e.a.Server.Registry.Lookup("trips.upload")
	return e.a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Key: key(), Args: settings,
		Files: map[string]apptest.File{"gpxFile": {Name: "big.gpx", ContentType: "application/gpx+xml", Body: file}}})
}

// TestTripSizeIsBounded: a route making more than trips.MaxDays days, or
// keeping more than trips.MaxRoutePoints points once simplified, is
// refused naming the file, and nothing is created; dates spanning more
// days are refused naming endDate on both faces; a route at the bound is
// accepted.
func TestTripSizeIsBounded(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		long := gpxOf(t, "Long", routefixture.Line(2_000, 9_000_000)) // 9,000 km: 113 days at 80 km
		dense := gpxOf(t, "Dense", everyPointKept(trips.MaxRoutePoints+1_000))
		tests := []struct {
			name     string
			file     []byte
			settings map[string]any
			want     string
		}{
			{"too many days", long, nil, "days"},
			{"too many points", dense, map[string]any{"maxDistancePerDay": 300}, "points"},
		}
		for _, tt := range tests {
			out := e.uploadFile(t, tt.file, tt.settings)
			require.Equal(t, http.StatusUnprocessableEntity, out.Status, "%s: %s", tt.name, out.Raw)
			require.Equal(t, []string{"gpxFile"}, fields(out.Body), "%s: the refusal names the file: %s", tt.name, out.Raw)
			require.Contains(t, string(out.Raw), tt.want, tt.name)
		}
		require.Zero(t, e.tripCount(t), "nothing was created")

		fits := e.uploadFile(t, long, map[string]any{"maxDistancePerDay": 100}) // 90 days
		require.Equal(t, http.StatusAccepted, fits.Status, string(fits.Raw))
		require.LessOrEqual(t, len(fits.Body["days"].([]any)), trips.MaxDays)

		create, _ := a.Server.Registry.Lookup("trips.create")
		for _, via := range []func(apptest.Request) apptest.Outcome{
			func(r apptest.Request) apptest.Outcome { return a.ViaHTTP(t, r) },
			func(r apptest.Request) apptest.Outcome { return a.ViaMCP(t, e.mcp, r) },
		} {
			out := via(apptest.Request{Op: create, Token: e.token, Key: key(), Args: map[string]any{
				"sourceUrl": plannertest.StravaRoute(120), "startDate": day(30), "endDate": day(30 + trips.MaxDays)}})
			require.Equal(t, http.StatusUnprocessableEntity, out.Status, string(out.Raw))
			require.Equal(t, []string{"endDate"}, fields(out.Body), string(out.Raw))
		}
	})
}

// TestAnOversizedUploadNamesItsFile: a GPX file over the upload bound, or a
// request over the multipart bound, is a 400 naming gpxFile.
func TestAnOversizedUploadNamesItsFile(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	tests := []struct {
		name string
		size int64
	}{
		{"a file over 30 MB", trips.MaxUploadBytes + 1<<19},
		{"a request over 31 MB", operations.MaxUpload + 1<<20},
	}
	for _, tt := range tests {
		e := newEnv(t, a)
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="gpxFile"; filename="big.gpx"`)
		h.Set("Content-Type", "application/gpx+xml")
		pw, err := w.CreatePart(h)
		require.NoError(t, err)
		_, err = io.Copy(pw, routefixture.Oversized(tt.size))
		require.NoError(t, err)
		require.NoError(t, w.Close())
		res := a.Do(t, http.MethodPost, "/trips/gpx-upload", e.token, buf.String(),
			"Content-Type", w.FormDataContentType(), "Idempotency-Key", key())
		require.Equal(t, http.StatusBadRequest, res.Status, "%s: %.300s", tt.name, res.Body)
		require.Equal(t, []string{"gpxFile"}, fields(res.JSON(t)), "%s: %.300s", tt.name, res.Body)
	}
}

// TestRefusedCallsSpendNoQuota: ten creations refused for their arguments
// (422) leave the eleventh, valid one within the limit of ten a minute, on
// both faces and both engines; the same for uploads refused for a setting.
func TestRefusedCallsSpendNoQuota(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		create, _ := a.Server.Registry.Lookup("trips.create")
		for _, via := range []string{"http", "mcp"} {
			e := newEnv(t, a) // the limit is per user
			send := func(args map[string]any) apptest.Outcome {
				r := apptest.Request{Op: create, Token: e.token, Key: key(), Args: args}
				if via == "mcp" {
					return a.ViaMCP(t, e.mcp, r)
				}
				return a.ViaHTTP(t, r)
			}
			for i := range 10 {
				out := send(map[string]any{"sourceUrl": plannertest.StravaRoute(120), "averageSpeed": 500})
				require.Equal(t, http.StatusUnprocessableEntity, out.Status, "%s, refused creation %d: %s", via, i+1, out.Raw)
			}
			out := send(map[string]any{"sourceUrl": plannertest.StravaRoute(120)})
			require.Less(t, out.Status, 300, "%s: the refusals spent nothing: %s", via, out.Raw)
			require.NotEmpty(t, out.Body["id"], "%s: created", via)
		}

		e := newEnv(t, a)
		file := gpxOf(t, "Short", routefixture.Line(200, 100_000))
		for i := range 10 {
			out := e.uploadFile(t, file, map[string]any{"averageSpeed": 500})
			require.Equal(t, http.StatusUnprocessableEntity, out.Status, "refused upload %d: %s", i+1, out.Raw)
		}
		out := e.uploadFile(t, file, nil)
		require.Equal(t, http.StatusAccepted, out.Status, "the refused uploads spent nothing: %s", out.Raw)
	})
}

// TestARefusalStaysSmall: 90,000 unknown keys in a body just under the
// body limit are refused with at most registry.MaxViolations listed and
// the rest counted, in a few kilobytes, on both faces (it was 7 MB).
func TestARefusalStaysSmall(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	args := map[string]any{"sourceUrl": plannertest.StravaRoute(120)}
	for i := range 90_000 {
		args[fmt.Sprintf("k%05d", i)] = 0
	}
	create, _ := a.Server.Registry.Lookup("trips.create")
	for _, via := range []string{"http", "mcp"} {
		r := apptest.Request{Op: create, Token: e.token, Key: key(), Args: args}
		out := a.ViaHTTP(t, r)
		if via == "mcp" {
			out = a.ViaMCP(t, e.mcp, r)
		}
		require.Equal(t, http.StatusUnprocessableEntity, out.Status, "%s: %.300s", via, out.Raw)
		require.Len(t, fields(out.Body), registry.MaxViolations, via)
		require.EqualValues(t, 90_000-registry.MaxViolations, out.Body["moreViolations"], via)
		require.Less(t, len(out.Raw), 16<<10, "%s: the refusal is %d bytes", via, len(out.Raw))
	}
	require.Zero(t, e.tripCount(t))
}

// TestADatabaseOutageIsUnavailable: with PostgreSQL unreachable, the
// trips listing answers 503 with Retry-After on both faces, never 500.
func TestADatabaseOutageIsUnavailable(t *testing.T) {
	t.Parallel()
	outage := storagetest.NewPostgresOutage(t)
	a := plannertest.New(t, apptest.Database(outage.URL))
	e := newEnv(t, a)
	list, _ := a.Server.Registry.Lookup("trips.list")
	require.Equal(t, http.StatusOK, a.ViaHTTP(t, apptest.Request{Op: list, Token: e.token}).Status)

	outage.Cut()
	for _, via := range []string{"http", "mcp"} {
		r := apptest.Request{Op: list, Token: e.token}
		out := a.ViaHTTP(t, r)
		if via == "mcp" {
			out = a.ViaMCP(t, e.mcp, r)
		}
		require.Equal(t, http.StatusServiceUnavailable, out.Status, "%s: %s", via, out.Raw)
		require.Equal(t, registry.ProblemTypeBase+registry.KindUnavailable.String(), out.Type, via)
		if via == "http" {
			require.NotEmpty(t, out.Header.Get("Retry-After"))
		} else {
			require.NotZero(t, out.Body["retryAfter"])
		}
	}
}
