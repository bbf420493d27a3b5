package planner_test

import (
	"bytes"
	"fmt"
	"math"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/routefixture"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/registry"
)

// TestAbsurdNumbersAndNullsAreRefusedByName: a value outside its physical
// range, or null for a field that cannot be null, is refused with 422 naming
// the field, the same on both faces, and nothing is written (the version
// stays).
func TestAbsurdNumbersAndNullsAreRefusedByName(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	tests := []struct {
		name, op string
		args     map[string]any
		stage    int // the day addressed, -1 for none
		want     string
	}{
		{"an elevation of 1e308 on a new day", "stages.add", map[string]any{
			"startPoint": map[string]any{"lat": 0, "lon": 1.8, "ele": 1e308}, "endPoint": map[string]any{"lat": 0, "lon": 2.2}}, -1, "startPoint.ele"},
		{"an elevation of -1e308 on a day's end", "stages.update", map[string]any{
			"endPoint": map[string]any{"lat": 0, "lon": 1, "ele": -1e308}}, 0, "endPoint.ele"},
		{"a latitude past the pole", "stages.update", map[string]any{
			"startPoint": map[string]any{"lat": 90.5, "lon": 1}}, 0, "startPoint.lat"},
		{"a longitude past the antimeridian", "stages.add_waypoint", map[string]any{
			"waypointLat": 0, "waypointLon": -180.01}, 0, "waypointLon"},
		{"a chosen id of 200 characters", "stages.choose_accommodation", map[string]any{
			"accommodationId": strings.Repeat("x", 200)}, 0, "accommodationId"},
		{"an elevation penalty of 1e308", "trips.update_settings", map[string]any{"elevationPenalty": 1e308}, -1, "elevationPenalty"},
		{"a null average speed", "trips.update_settings", map[string]any{"averageSpeed": nil}, -1, "averageSpeed"},
		{"a null source", "trips.update_settings", map[string]any{"sourceUrl": nil}, -1, "sourceUrl"},
		{"null accommodation types", "trips.update_settings", map[string]any{"enabledAccommodationTypes": nil}, -1, "enabledAccommodationTypes"},
		{"a null elevation of a day's end", "stages.update", map[string]any{
			"endPoint": map[string]any{"lat": 0, "lon": 1, "ele": nil}}, 0, "endPoint.ele"},
		{"a null distance", "stages.update", map[string]any{"distance": nil}, 0, "distance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			op, ok := a.Server.Registry.Lookup(tt.op)
			require.True(t, ok, tt.op)
			e := newEnv(t, a) // uploads are limited per user
			var bodies []map[string]any
			for _, via := range []string{"http", "mcp"} {
				r := stageReq(t, e, 200, map[string]any{"startDate": day(30)}, tt.stage, nil)
				r.Op, r.Token, r.Args = op, e.token, tt.args
				if op.Precondition != registry.RequireVersion {
					r.Version = nil
				}
				var out apptest.Outcome
				if via == "http" {
					out = a.ViaHTTP(t, r)
				} else {
					out = a.ViaMCP(t, e.mcp, r)
				}
				require.Equal(t, http.StatusUnprocessableEntity, out.Status, "%s: %s", via, out.Raw)
				require.Contains(t, fields(out.Body), tt.want, "%s: the refusal names the field: %s", via, out.Raw)
				if r.Version != nil {
					require.Equal(t, *r.Version, *e.version(t, r.Vars["id"]), "%s: nothing was written", via)
				}
				bodies = append(bodies, out.Body)
			}
			require.Equal(t, bodies[0]["violations"], bodies[1]["violations"], "the same refusal on both faces")
		})
	}
}

// TestUploadRefusesExtraAndRepeatedParts: a file part the upload does not
// declare, the GPX file sent twice, or a setting sent twice is refused by
// name, and no trip is made.
func TestUploadRefusesExtraAndRepeatedParts(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: "Parts", Points: plannertest.Line(120)}))
	type part struct{ name, file, value string }
	gpxPart := part{name: "gpxFile", file: "a.gpx"}
	tests := []struct {
		name  string
		parts []part
		want  string
	}{
		{"an undeclared file part", []part{gpxPart, {name: "other", file: "b.gpx"}}, "other"},
		{"the GPX file twice", []part{gpxPart, {name: "gpxFile", file: "b.gpx"}}, "gpxFile"},
		{"a setting twice", []part{gpxPart, {name: "averageSpeed", value: "20"}, {name: "averageSpeed", value: "30"}}, "averageSpeed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, a)
			var buf bytes.Buffer
			w := multipart.NewWriter(&buf)
			for _, p := range tt.parts {
				if p.file == "" {
					require.NoError(t, w.WriteField(p.name, p.value))
					continue
				}
				h := textproto.MIMEHeader{}
				h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.file))
				h.Set("Content-Type", "application/gpx+xml")
				pw, err := w.CreatePart(h)
				require.NoError(t, err)
				_, _ = pw.Write(g.Bytes())
			}
			require.NoError(t, w.Close())
			res := a.Do(t, http.MethodPost, "/trips/gpx-upload", e.token, buf.String(), "Content-Type", w.FormDataContentType())
			require.Equal(t, http.StatusUnprocessableEntity, res.Status, string(res.Body))
			require.Contains(t, fields(res.JSON(t)), tt.want, string(res.Body))
			list := a.Do(t, http.MethodGet, "/trips", e.token, nil)
			require.Equal(t, http.StatusOK, list.Status)
			require.EqualValues(t, 0, list.JSON(t)["totalItems"], "no trip was made")
		})
	}
}

// TestAPagePastEveryOffsetIsRefusedByName: GET /trips and list_trips asked
// for a page whose offset no store can hold are refused with 422 naming
// page, on both engines and both faces (PostgreSQL once answered 500 for a
// negative OFFSET, SQLite page 1); the last page there is answers empty.
func TestAPagePastEveryOffsetIsRefusedByName(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		e.trip(t, nil)
		res := a.Do(t, http.MethodGet, "/trips?page=9223372036854775807", e.token, nil)
		require.Equal(t, http.StatusUnprocessableEntity, res.Status, string(res.Body))
		require.Contains(t, fields(res.JSON(t)), "page", string(res.Body))

		op, _ := a.Server.Registry.Lookup("trips.list")
		for _, page := range []int64{461168601842738792, math.MaxInt64} {
			for _, via := range []string{"http", "mcp"} {
				r := apptest.Request{Op: op, Token: e.token, Args: map[string]any{"page": page}}
				out := a.ViaHTTP(t, r)
				if via == "mcp" {
					out = a.ViaMCP(t, e.mcp, r)
				}
				require.Equal(t, http.StatusUnprocessableEntity, out.Status, "%s, page %d: %s", via, page, out.Raw)
				require.Contains(t, fields(out.Body), "page", "%s, page %d: %s", via, page, out.Raw)
			}
		}
		last := registry.MaxOffset/op.Paging.Default + 1
		for _, via := range []string{"http", "mcp"} {
			r := apptest.Request{Op: op, Token: e.token, Args: map[string]any{"page": last}}
			out := a.ViaHTTP(t, r)
			if via == "mcp" {
				out = a.ViaMCP(t, e.mcp, r)
			}
			require.Equal(t, http.StatusOK, out.Status, "%s: the last page there is: %s", via, out.Raw)
			require.Empty(t, out.Body["member"], via)
			require.Contains(t, out.Body, "member", via)
			require.EqualValues(t, 1, out.Body["totalItems"], via)
		}
	})
}

// TestAMissingArgumentIsNamedBesideTheUnpublished: a call missing a
// required argument and sending an unpublished one is refused naming
// both, on both faces.
func TestAMissingArgumentIsNamedBesideTheUnpublished(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	get, _ := a.Server.Registry.Lookup("trips.get")
	out := a.ViaMCP(t, e.mcp, apptest.Request{Op: get, Token: e.token, Args: map[string]any{"tripIdentifier": "x"}})
	require.Equal(t, http.StatusUnprocessableEntity, out.Status, string(out.Raw))
	require.Subset(t, fields(out.Body), []string{"id", "tripIdentifier"}, string(out.Raw))

	create, _ := a.Server.Registry.Lookup("trips.create")
	for _, via := range []string{"http", "mcp"} {
		r := apptest.Request{Op: create, Token: e.token, Key: key(), Args: map[string]any{"sourceAddress": plannertest.StravaRoute(120)}}
		out := a.ViaHTTP(t, r)
		if via == "mcp" {
			out = a.ViaMCP(t, e.mcp, r)
		}
		require.Equal(t, http.StatusUnprocessableEntity, out.Status, "%s: %s", via, out.Raw)
		require.Subset(t, fields(out.Body), []string{"sourceUrl", "sourceAddress"}, "%s: %s", via, out.Raw)
	}
}

// TestStoredTextFollowsOneRule: a control character or a bidirectional
// override sent in a title, a day's label, a place's name or address or a
// device token is refused naming the field on each face that serves the
// operation, on both engines, and nothing is stored; a manual place's url
// must be http or https; a GPX track name holding the same characters is
// imported without them (the same rule, applied to third-party text).
func TestStoredTextFollowsOneRule(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		lookup := func(id string) *registry.Operation {
			op, ok := a.Server.Registry.Lookup(id)
			require.True(t, ok, id)
			return op
		}
		send := func(via string, r apptest.Request) apptest.Outcome {
			if via == "mcp" {
				return a.ViaMCP(t, e.mcp, r)
			}
			return a.ViaHTTP(t, r)
		}
		day := stageReq(t, e, 200, map[string]any{"startDate": day(30)}, 0, nil)
		tests := []struct {
			name  string
			op    string
			vars  map[string]string
			args  map[string]any
			faces []string
			field string
		}{
			{"a title with U+202E", "trips.create", nil,
				map[string]any{"sourceUrl": plannertest.StravaRoute(120), "title": "Tour\u202egpj.exe"}, []string{"http", "mcp"}, "title"},
			{"a label with BEL", "stages.update", day.Vars, map[string]any{"label": "Day\a one"}, []string{"http", "mcp"}, "label"},
			{"a place's name with ESC", "stages.manual_accommodation", day.Vars,
				map[string]any{"name": "\x1b[31mCamping", "address": "Lyon", "lat": 45.7, "lon": 4.8}, []string{"http"}, "name"},
			{"a place's address with U+202E", "stages.manual_accommodation", day.Vars,
				map[string]any{"name": "Camping", "address": "Lyon\u202e", "lat": 45.7, "lon": 4.8}, []string{"http"}, "address"},
			{"a place's javascript: url", "stages.manual_accommodation", day.Vars,
				map[string]any{"name": "Camping", "address": "Lyon", "lat": 45.7, "lon": 4.8, "url": "javascript:alert(document.domain)"}, []string{"http"}, "url"},
			{"a place's data: url", "stages.manual_accommodation", day.Vars,
				map[string]any{"name": "Camping", "address": "Lyon", "lat": 45.7, "lon": 4.8, "url": "data:text/html,<script>alert(1)</script>"}, []string{"http"}, "url"},
			{"a device token with BEL", "account.register_device", nil, map[string]any{"token": "phone\a1", "platform": "ios"}, []string{"http"}, "token"},
		}
		for _, tt := range tests {
			op := lookup(tt.op)
			for _, via := range tt.faces {
				r := apptest.Request{Op: op, Token: e.token, Vars: tt.vars, Args: tt.args}
				if op.Idempotency.Creation() {
					r.Key = key()
				}
				if op.Precondition == registry.RequireVersion {
					r.Version = e.version(t, tt.vars["id"])
				}
				out := send(via, r)
				require.Equal(t, http.StatusUnprocessableEntity, out.Status, "%s, %s: %s", tt.name, via, out.Raw)
				require.Contains(t, fields(out.Body), tt.field, "%s, %s: %s", tt.name, via, out.Raw)
			}
		}
		require.Equal(t, *day.Version, *e.version(t, day.Vars["id"]), "no day was changed")
		require.Equal(t, 1, e.tripCount(t), "no trip was created")
		devices := a.Do(t, http.MethodGet, "/users/me/export", e.token, nil)
		require.NotContains(t, string(devices.Body), "phone", "no device was registered")

		hostile := gpxOf(t, "Col\u202e du \u2066Galibier", routefixture.Line(200, 100_000))
		up := e.uploadFile(t, hostile, nil)
		require.Equal(t, http.StatusAccepted, up.Status, string(up.Raw))
		require.Equal(t, "Col du Galibier", up.Body["title"], "the file's name keeps none of them")
	})
}
