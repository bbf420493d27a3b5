package planner_test

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/registry"
)

// TestOpenAPIGolden keeps the served document under review: a change to
// what the API publishes changes testdata/openapi.golden.json. The server's
// own address, which changes with each run, is left out.
func TestOpenAPIGolden(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	doc := a.Do(t, "GET", "/openapi.json", "", nil).JSON(t)
	delete(doc, "servers")
	raw, err := json.Marshal(doc)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, json.Indent(&out, raw, "", "  "))
	golden(t, "openapi.golden.json", append(out.Bytes(), '\n'))
}

// operation is the document's entry for method and path.
func operation(t *testing.T, doc map[string]any, method, path string) map[string]any {
	t.Helper()
	item, ok := doc["paths"].(map[string]any)[path].(map[string]any)
	require.True(t, ok, "%s is documented", path)
	op, ok := item[strings.ToLower(method)].(map[string]any)
	require.True(t, ok, "%s %s is documented", method, path)
	return op
}

// response is the documented answer of op with status.
func response(t *testing.T, op map[string]any, status int) map[string]any {
	t.Helper()
	r, ok := op["responses"].(map[string]any)[strconv.Itoa(status)].(map[string]any)
	require.True(t, ok, "%s documents %d", op["operationId"], status)
	return r
}

// TestOpenAPISaysWhatTheServerSends: the document names the conflicts the
// handlers answer, by code, and the server's own conflicts carry a
// documented code and type; file answers have their formats' media types,
// and the server sends them; the problem types are an enum; every tag is
// declared; operation ids have one form; the event stream documents its
// events, its resumption and its ticket.
func TestOpenAPISaysWhatTheServerSends(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	doc := a.Do(t, "GET", "/openapi.json", "", nil).JSON(t)
	e := newEnv(t, a)
	id := e.trip(t, map[string]any{"startDate": day(30), "endDate": day(31)})
	st := a.WaitSettled(t, e.token, id)

	for _, tt := range []struct{ method, path, code string }{
		{"PATCH", "/trips/{id}/stages/{stageId}/accommodation", "not_a_candidate"},
		{"POST", "/trips/{id}/share", "share_exists"},
		{"POST", "/trips/{id}/analyze", "analysis_running"},
		{"POST", "/trips/{id}/stages/{stageId}/rest-day", "days_computing"},
		{"PATCH", "/trips/{id}/stages/{stageId}/accommodation", "days_computing"},
		{"DELETE", "/trips/{id}/stages/{stageId}", "days_computing"},
		{"PATCH", "/trips/{id}", "confirmation_refused"},
		{"POST", "/trips", "idempotency_key_reused"},
	} {
		require.Contains(t, response(t, operation(t, doc, tt.method, tt.path), http.StatusConflict)["description"], "`"+tt.code+"`", "%s %s", tt.method, tt.path)
	}

	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	enum := schemas["RegistryProblem"].(map[string]any)["properties"].(map[string]any)["type"].(map[string]any)["enum"].([]any)
	for _, k := range registry.Kinds() {
		require.Contains(t, enum, registry.ProblemTypeBase+k.String())
	}
	require.Contains(t, enum, operations.ConfirmationType)

	// What the server answers, against what the document says.
	conflict := func(method, path string, res *apptest.Response) {
		t.Helper()
		require.Equal(t, http.StatusConflict, res.Status, string(res.Body))
		body := res.JSON(t)
		require.Contains(t, enum, body["type"], "the type is one the document lists")
		if code, ok := body["code"].(string); ok {
			require.Contains(t, response(t, operation(t, doc, method, path), http.StatusConflict)["description"], "`"+code+"`", "the code %s is documented", code)
		}
	}
	version := strconv.Quote(strconv.FormatInt(int64(st["version"].(float64)), 10))
	conflict("PATCH", "/trips/{id}", a.Do(t, "PATCH", "/trips/"+id, e.token, map[string]any{"averageSpeed": 18},
		"If-Match", version, operations.HeaderConfirmationToken, "not-a-token"))
	first := a.Do(t, "PATCH", "/trips/"+id, e.token, map[string]any{"averageSpeed": 18}, "If-Match", version)
	if first.Status == http.StatusConflict { // asked for confirmation: the other branch of the oneOf
		conflict("PATCH", "/trips/{id}", first)
		require.NotEmpty(t, first.JSON(t)["confirmationToken"])
	}
	if res := a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil); res.Status < 300 {
		if again := a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil); again.Status == http.StatusConflict {
			conflict("POST", "/trips/{id}/share", again)
		}
	}
	body := map[string]any{"sourceUrl": plannertest.StravaRoute(120)}
	k := key()
	require.Less(t, a.Do(t, "POST", "/trips", e.token, body, operations.HeaderIdempotencyKey, k).Status, 300)
	conflict("POST", "/trips", a.Do(t, "POST", "/trips", e.token, map[string]any{"sourceUrl": plannertest.StravaRoute(121)}, operations.HeaderIdempotencyKey, k))
	confirmSchema := response(t, operation(t, doc, "PATCH", "/trips/{id}"), http.StatusConflict)["content"].(map[string]any)["application/problem+json"].(map[string]any)["schema"].(map[string]any)
	require.Len(t, confirmSchema["oneOf"], 2, "the confirmation request, or any other problem (a refused token)")

	for _, tt := range []struct{ path, media string }{
		{"/trips/{id}.gpx", "application/gpx+xml"},
		{"/trips/{id}.fit", "application/vnd.ant.fit"},
	} {
		content := response(t, operation(t, doc, "GET", tt.path), http.StatusOK)["content"].(map[string]any)
		require.Contains(t, content, tt.media, tt.path)
		res := a.Do(t, "GET", strings.Replace(tt.path, "{id}", id, 1), e.token, nil)
		require.Equal(t, http.StatusOK, res.Status, tt.path)
		mt, _, err := mime.ParseMediaType(res.Header.Get("Content-Type"))
		require.NoError(t, err)
		require.Equal(t, tt.media, mt, "%s: the server sends what the document says", tt.path)
	}

	declared := map[string]bool{}
	for _, tg := range doc["tags"].([]any) {
		declared[tg.(map[string]any)["name"].(string)] = true
	}
	ids := map[string]bool{}
	camel := regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)
	for _, item := range doc["paths"].(map[string]any) {
		for _, raw := range item.(map[string]any) {
			op, ok := raw.(map[string]any)
			if !ok {
				continue
			}
			oid := op["operationId"].(string)
			require.Regexp(t, camel, oid)
			require.False(t, ids[oid], "operationId %s is used once", oid)
			ids[oid] = true
			for _, tg := range op["tags"].([]any) {
				require.True(t, declared[tg.(string)], "tag %s of %s is declared with the document", tg, oid)
			}
		}
	}

	// An upload past the slots is refused with 503 and Retry-After
	// (TestUploadSlots); every call may meet a store that is down.
	for _, path := range []string{"/trips/gpx-upload", "/trips"} {
		unavailable := response(t, operation(t, doc, "POST", path), http.StatusServiceUnavailable)
		require.Contains(t, unavailable["headers"], "Retry-After", path)
		require.Contains(t, unavailable["content"], "application/problem+json", path)
	}

	events := operation(t, doc, "GET", "/trips/{id}/events")
	stream := response(t, events, http.StatusOK)["content"].(map[string]any)["text/event-stream"].(map[string]any)["schema"].(map[string]any)["description"].(string)
	for _, ev := range (trips.EventStream{}).EventTypes() {
		require.Contains(t, stream, "`"+ev.Name+"`", "event %s is documented", ev.Name)
	}
	response(t, events, http.StatusNoContent)
	var params []string
	for _, p := range events["parameters"].([]any) {
		params = append(params, p.(map[string]any)["name"].(string))
	}
	require.Contains(t, params, operations.HeaderLastEventID)
	require.Contains(t, events["security"], map[string]any{operations.TicketScheme: []any{}}, "a ticket opens it too")
	for _, path := range []string{"/trips", "/trips/{id}"} {
		require.NotContains(t, operation(t, doc, "GET", path)["security"], map[string]any{operations.TicketScheme: []any{}}, "a ticket opens nothing else")
	}
}

// TestDocsOpenWithGettingStarted: the API reference (/docs renders the
// document's description first) opens with how to call it: a token,
// Idempotency-Key, If-Match, confirmation and the event stream with its
// ticket. No request sample it shows has a start date in the past: every
// date schema carries a sample, later than today.
func TestDocsOpenWithGettingStarted(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	doc := a.Do(t, "GET", "/openapi.json", "", nil).JSON(t)
	desc := doc["info"].(map[string]any)["description"].(string)
	at := strings.Index(desc, operations.GettingStartedTitle)
	require.GreaterOrEqual(t, at, 0, desc)
	require.NotContains(t, desc[:at], "\n#", "it is the first section")
	require.Contains(t, desc, "cairn token create", "where a token comes from")
	for _, want := range []string{"Authorization: Bearer", operations.HeaderIdempotencyKey, "If-Match",
		operations.HeaderConfirmationToken, operations.ConfirmationType, operations.HeaderLastEventID, "/trips/{id}/events/ticket"} {
		require.Contains(t, desc[at:], want)
	}

	today := time.Now().UTC().Format("2006-01-02")
	var dates int
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if x["format"] == "date" {
				dates++
				examples, _ := x["examples"].([]any)
				require.NotEmpty(t, examples, "%s: a date schema without a sample gets one made up, in the past", path)
				for _, ex := range examples {
					require.Greater(t, ex.(string), today, "%s: the sample is a day to come", path)
				}
			}
			for k, e := range x {
				walk(path+"/"+k, e)
			}
		case []any:
			for i, e := range x {
				walk(path+"/"+strconv.Itoa(i), e)
			}
		}
	}
	walk("", doc)
	require.Positive(t, dates, "the document has date fields")
}

// TestSchemaTextNamesNoTool: a field's description is read by both faces,
// so it speaks of what the field is, never of an MCP tool an HTTP client
// cannot call. (An operation's description may name its tool twin: that
// line says so, "MCP tool `x`".)
func TestSchemaTextNamesNoTool(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	doc := a.Do(t, "GET", "/openapi.json", "", nil).JSON(t)
	var tools []string
	for _, op := range a.Server.Registry.Operations() {
		if op.Tool.Name != "" {
			tools = append(tools, regexp.QuoteMeta(op.Tool.Name))
		}
	}
	require.NotEmpty(t, tools)
	named := regexp.MustCompile(`\b(` + strings.Join(tools, "|") + `)\b`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, sub := range v {
				if s, ok := sub.(string); ok && k == "description" {
					require.False(t, named.MatchString(s), "%s names a tool: %q", path, s)
				}
				walk(path+"."+k, sub)
			}
		case []any:
			for i, sub := range v {
				walk(path+"["+strconv.Itoa(i)+"]", sub)
			}
		}
	}
	walk("components", doc["components"])
}
