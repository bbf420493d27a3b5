package operations_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
)

// NoteInput is what the test's form posts.
type NoteInput struct {
	Note  string   `json:"note" maxLength:"20"`
	Tags  []string `json:"tags,omitempty"`
	Count int      `json:"count,omitempty"`
}

// Back is where the test's form sends the browser.
type Back struct{ to string }

// ResourceLocation implements registry.Located.
func (b Back) ResourceLocation() string { return b.to }

// Noted is the JSON answer of the route that takes no form.
type Noted struct {
	Note string `json:"note"`
}

// formFace serves two public operations: a form's target answering 303
// with what it read, and a JSON-only route.
func formFace(t *testing.T, maxBody int64) *httptest.Server {
	t.Helper()
	reg := registry.New()
	common := func(o registry.Op[NoteInput, Back]) registry.Op[NoteInput, Back] {
		o.Tool, o.Scope, o.Owner, o.RateLimit = registry.NotATool(registry.MotiveBrowserAndMailbox), registry.Public, registry.CallerOwned, registry.NoRateLimit
		o.Validate, o.Lock, o.Precondition, o.Confirm, o.Idempotency = registry.NotValidated, registry.NoLock, registry.NoPrecondition, registry.NoConfirm, registry.NotACreation
		return o
	}
	registry.Add(reg, common(registry.Op[NoteInput, Back]{
		ID: "forms.note", Summary: "Take a note from a form",
		HTTP: registry.Post("/notes", http.StatusSeeOther).WithForm(),
		Handle: func(_ context.Context, _ *registry.Call, in *NoteInput) (Back, error) {
			q := url.Values{"note": {in.Note}, "tags": in.Tags, "count": {strings.Repeat("i", in.Count)}}
			return Back{to: "/back?" + q.Encode()}, nil
		},
	}))
	registry.Add(reg, registry.Op[NoteInput, Noted]{
		ID: "forms.json", Summary: "Take a note as JSON only",
		HTTP: registry.Post("/json-notes", http.StatusOK), Tool: registry.NotATool(registry.MotiveBrowserAndMailbox),
		Scope: registry.Public, Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition, Confirm: registry.NoConfirm, Idempotency: registry.NotACreation,
		Handle: func(_ context.Context, _ *registry.Call, in *NoteInput) (Noted, error) {
			return Noted{Note: in.Note}, nil
		},
	})
	require.NoError(t, reg.Check())

	mux := http.NewServeMux()
	hc := huma.DefaultConfig("forms", "1")
	hc.Components.Schemas = operations.NewSchemaRegistry()
	api := humago.New(mux, hc)
	schemas := operations.NewSchemas(api.OpenAPI().Components.Schemas)
	chain, err := guards.NewChain(guards.Authenticate{}, guards.Scope{}, guards.RateLimit{}, guards.Owner{},
		guards.Arguments{Schema: schemas}, guards.Read{}, guards.Merge{}, guards.Validate{}, guards.Lock{},
		guards.Precondition{}, guards.Confirm{}, guards.Idempotency{})
	require.NoError(t, err)
	operations.New(api, chain, schemas, slog.New(slog.DiscardHandler), maxBody).Mount(reg)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestFormBodies: a route declared WithForm reads an HTML form's fields
// as its arguments, typed by the schema (a list takes every value), and
// its 303 answer is the Location alone; the same fields still come as
// JSON. A form sent to any other route is 415; a field sent twice, an
// unknown one and a body over the limit are refused.
func TestFormBodies(t *testing.T) {
	t.Parallel()
	srv := formFace(t, 256)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path, contentType, body string) *http.Response {
		t.Helper()
		res, err := client.Post(srv.URL+path, contentType, strings.NewReader(body))
		require.NoError(t, err)
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	const form = "application/x-www-form-urlencoded"

	res := post("/notes", form, url.Values{"note": {"hello"}, "tags": {"a", "b"}, "count": {"3"}}.Encode())
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	back, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "hello", back.Query().Get("note"))
	require.Equal(t, []string{"a", "b"}, back.Query()["tags"], "a list field takes every value")
	require.Equal(t, "iii", back.Query().Get("count"), "a number field is a number")
	require.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	require.Empty(t, res.Header.Get("Content-Type"), "no body")

	res = post("/notes", form+"; charset=utf-8", "note=plain")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	res = post("/notes", "application/json", `{"note":"json"}`)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "JSON is still taken")
	require.Contains(t, res.Header.Get("Location"), "note=json")

	for name, tt := range map[string]struct {
		path, contentType, body string
		status                  int
		field                   string
	}{
		"a form to a JSON route": {"/json-notes", form, "note=x", http.StatusUnsupportedMediaType, ""},
		"a field sent twice":     {"/notes", form, "note=a&note=b", http.StatusUnprocessableEntity, "note"},
		"an unknown field":       {"/notes", form, "note=a&admin=1", http.StatusUnprocessableEntity, "admin"},
		"a field too long":       {"/notes", form, "note=" + strings.Repeat("x", 21), http.StatusUnprocessableEntity, "note"},
		"a body over the limit":  {"/notes", form, "note=" + strings.Repeat("x", 300), http.StatusRequestEntityTooLarge, ""},
		"a malformed form":       {"/notes", form, "note=%zz", http.StatusBadRequest, ""},
	} {
		res := post(tt.path, tt.contentType, tt.body)
		require.Equal(t, tt.status, res.StatusCode, name)
		require.Empty(t, res.Header.Get("Location"), name)
		if tt.field != "" {
			var b strings.Builder
			_, _ = io.Copy(&b, res.Body)
			require.Contains(t, b.String(), `"field":"`+tt.field+`"`, name)
		}
	}
}
