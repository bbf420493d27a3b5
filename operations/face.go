// Package operations is the HTTP face: one huma operation per declaration,
// with path, query, headers and body mapped onto the neutral registry.Call,
// the shared guard chain run on it, and refusals written as RFC 9457
// problem+json. Nothing here decides whether a call is allowed.
package operations

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// Headers of the HTTP face.
const (
	HeaderIdempotencyKey    = "Idempotency-Key"
	HeaderConfirmationToken = "Confirmation-Token"
)

// DefaultMaxBody bounds a JSON body when no limit is configured.
const DefaultMaxBody = 1 << 20

// Face serves the registry over HTTP.
type Face struct {
	api     huma.API
	chain   *guards.Chain
	schemas *Schemas
	log     *slog.Logger
	now     func() time.Time
	maxBody int64
}

// New returns the HTTP face over api, running chain. A JSON body over
// maxBody bytes is refused with 413, as LimitBody refuses one on /mcp.
func New(api huma.API, chain *guards.Chain, schemas *Schemas, log *slog.Logger, maxBody int64) *Face {
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	return &Face{api: api, chain: chain, schemas: schemas, log: log, now: time.Now, maxBody: maxBody}
}

// TooLarge is the one refusal of a body over the limit, on both faces. It
// comes before authentication: it says nothing about any record.
func TooLarge(max int64) *registry.Error {
	return &registry.Error{Kind: registry.KindTooLarge,
		Detail: fmt.Sprintf("the request body is larger than %d bytes; send less", max)}
}

// LimitBody refuses, before next reads anything, a body larger than max
// bytes: at once when its length is announced, and at max bytes otherwise.
// The MCP endpoint runs behind it, so both faces share one limit.
func LimitBody(max int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			WriteProblem(w, TooLarge(max))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		next.ServeHTTP(w, r)
	})
}

// GuardNames lists the guards this face runs, in order.
func (f *Face) GuardNames() []string { return f.chain.Names() }

// Mount adds every operation of reg to the API and its OpenAPI document.
func (f *Face) Mount(reg *registry.Registry) {
	for _, op := range reg.Operations() {
		hop := f.describe(op)
		f.api.OpenAPI().AddOperation(hop)
		f.api.Adapter().Handle(hop, f.handler(op))
	}
}

func (f *Face) handler(op *registry.Operation) func(huma.Context) {
	return func(hc huma.Context) {
		c := &registry.Call{Op: op, Face: registry.FaceHTTP, Now: f.now(), Vars: map[string]string{}}
		c.Credential = registry.BearerCredential(hc.Header("Authorization"))
		for _, v := range op.URIVariables() {
			c.Vars[v] = hc.Param(v)
		}
		switch {
		case op.HTTP.Method == http.MethodGet || op.HTTP.Method == http.MethodDelete:
			u := hc.URL()
			c.Args = f.formArgs(op, u.Query())
		case len(op.HTTP.Files) > 0 && c.Credential == "":
			// Nothing is read for a caller authenticate will refuse.
		case len(op.HTTP.Files) > 0:
			form, files, cleanup, unreadable := readMultipart(hc, op.HTTP.Files)
			defer cleanup() // spooled files go when the request is answered
			c.Args, c.Files, c.Unreadable = f.formArgs(op, form), files, unreadable
		default:
			var tooLarge bool
			c.Args, c.Unreadable, tooLarge = readBody(hc, f.maxBody)
			if tooLarge {
				f.writeError(hc, c, TooLarge(f.maxBody))
				return
			}
		}
		if im := hc.Header("If-Match"); im != "" {
			c.ExpectedVersion, c.VersionMalformed = parseETag(im)
		}
		c.IdempotencyKey = hc.Header(HeaderIdempotencyKey)
		c.ConfirmationToken = hc.Header(HeaderConfirmationToken)

		err := f.chain.Run(hc.Context(), c)
		switch {
		case err != nil:
			f.writeError(hc, c, err)
		case c.Confirmation != nil:
			writeConfirmation(hc, c.Confirmation)
		default:
			writeOutput(hc, op, c.Output)
		}
	}
}

// parseETag reads "3", W/"3" or 3. Anything else is marked malformed, and
// the precondition guard refuses it after authentication, as it refuses a
// version argument that is not an integer on MCP.
func parseETag(s string) (*int64, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "W/")
	v, err := strconv.ParseInt(strings.Trim(s, `"`), 10, 64)
	if err != nil {
		return nil, true
	}
	return &v, false
}

func readBody(hc huma.Context, max int64) (args map[string]json.RawMessage, unreadable string, tooLarge bool) {
	if n, err := strconv.ParseInt(hc.Header("Content-Length"), 10, 64); err == nil && n > max {
		return nil, "", true
	}
	body, err := io.ReadAll(io.LimitReader(hc.BodyReader(), max+1))
	if err != nil {
		return nil, "the request body could not be read", false
	}
	if int64(len(body)) > max {
		return nil, "", true
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return map[string]json.RawMessage{}, "", false
	}
	if err := json.Unmarshal(body, &args); err != nil || args == nil {
		return nil, "the request body must be a JSON object", false
	}
	return args, "", false
}

// formArgs maps query parameters or form fields onto arguments, typed by
// the published schema so that ?page=2 is the number 2, as over MCP. A list
// field takes every value given for it.
func (f *Face) formArgs(op *registry.Operation, values url.Values) map[string]json.RawMessage {
	args := map[string]json.RawMessage{}
	schema := f.schemas.Resolved(op.InputType)
	for name, vs := range values {
		name = strings.TrimSuffix(name, "[]")
		if len(vs) == 0 {
			continue
		}
		p := schema.Properties[name]
		if p != nil && p.Type == "array" {
			raw, _ := json.Marshal(vs)
			args[name] = raw
			continue
		}
		v := vs[0]
		if p != nil && (p.Type == "integer" || p.Type == "number" || p.Type == "boolean") && json.Valid([]byte(v)) {
			args[name] = json.RawMessage(v)
			continue
		}
		raw, _ := json.Marshal(v)
		args[name] = raw
	}
	return args
}

// MaxUpload bounds a multipart body: the largest accepted file and its form.
const MaxUpload = 31 << 20

// readMultipart reads a multipart form: its fields, and the declared files
// kept in memory or spooled to disk by the standard library.
func readMultipart(hc huma.Context, fileFields []string) (url.Values, map[string]registry.File, func(), string) {
	nothing := func() {}
	mt, params, err := mime.ParseMediaType(hc.Header("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, nil, nothing, "the request must be multipart/form-data"
	}
	form, err := multipart.NewReader(io.LimitReader(hc.BodyReader(), MaxUpload+1), params["boundary"]).ReadForm(8 << 20)
	if err != nil {
		return nil, nil, nothing, "the multipart body could not be read (or is larger than 31 MB)"
	}
	cleanup := func() { _ = form.RemoveAll() }
	files := map[string]registry.File{}
	for _, name := range fileFields {
		if fhs := form.File[name]; len(fhs) > 0 {
			fh := fhs[0]
			files[name] = registry.File{
				Name: fh.Filename, ContentType: fh.Header.Get("Content-Type"), Size: fh.Size,
				Open: func() (io.ReadCloser, error) { return fh.Open() },
			}
		}
	}
	return url.Values(form.Value), files, cleanup, ""
}

func writeOutput(hc huma.Context, op *registry.Operation, out any) {
	if st, ok := out.(registry.Streamer); ok {
		writeStream(hc, st)
		return
	}
	if d, ok := out.(registry.Download); ok {
		hc.SetHeader("Content-Type", d.ContentType())
		hc.SetHeader("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.FileName()}))
		hc.SetStatus(op.HTTP.Status)
		_ = d.WriteFile(hc.BodyWriter()) // the status is sent: a failure can only cut the file short
		return
	}
	if v, ok := out.(registry.Versioned); ok {
		hc.SetHeader("ETag", strconv.Quote(strconv.FormatInt(v.ResourceVersion(), 10)))
	}
	status := op.HTTP.Status
	if l, ok := out.(registry.Located); ok && (status == http.StatusCreated || status == http.StatusAccepted) {
		hc.SetHeader("Location", l.ResourceLocation())
	}
	if status == http.StatusNoContent {
		hc.SetStatus(status)
		return
	}
	writeJSON(hc, status, "application/json", out)
}

func writeJSON(hc huma.Context, status int, contentType string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"title":"Internal Server Error","status":500}`)
		contentType = "application/problem+json"
	}
	hc.SetHeader("Content-Type", contentType)
	hc.SetStatus(status)
	_, _ = hc.BodyWriter().Write(b)
}

// ConfirmationProblem is the 409 answer of a confirmed operation called
// without a token: nothing was written; repeat the call, unchanged, with the
// token in the Confirmation-Token header.
type ConfirmationProblem struct {
	registry.Problem
	Impact            registry.Impact `json:"impact" doc:"What the call will do and what will be lost."`
	ConfirmationToken string          `json:"confirmationToken" doc:"Single-use token; send it back in the Confirmation-Token header with identical arguments."`
	ExpiresAt         time.Time       `json:"expiresAt" doc:"When the token stops being accepted."`
}

// ConfirmationType is the problem type of a confirmation request.
const ConfirmationType = registry.ProblemTypeBase + "confirmation-required"

func writeConfirmation(hc huma.Context, req *registry.ConfirmationRequest) {
	hc.SetHeader(HeaderConfirmationToken, req.Token)
	writeJSON(hc, http.StatusConflict, "application/problem+json", ConfirmationProblem{
		Problem: registry.Problem{
			Type: ConfirmationType, Title: "Confirmation required", Status: http.StatusConflict,
			Detail: "nothing was written; repeat the same request with the Confirmation-Token header to act",
		},
		Impact: req.Impact, ConfirmationToken: req.Token, ExpiresAt: req.ExpiresAt,
	})
}

func (f *Face) writeError(hc huma.Context, c *registry.Call, err error) {
	e := registry.AsError(err)
	if e.Kind == registry.KindInternal {
		f.log.Error("operation failed", "op", c.Op.ID, "face", c.Face, "err", err)
	}
	for k, v := range problemHeaders(e) {
		hc.SetHeader(k, v)
	}
	p := e.Problem()
	writeJSON(hc, p.Status, "application/problem+json", p)
}

// problemHeaders are what a refusal carries besides its body: the bearer
// challenge of a 401 or 403, the wait of a 429.
func problemHeaders(e *registry.Error) map[string]string {
	switch e.Kind {
	case registry.KindUnauthenticated:
		return map[string]string{"WWW-Authenticate": `Bearer realm="cairn"`}
	case registry.KindForbidden:
		return map[string]string{"WWW-Authenticate": `Bearer realm="cairn", error="insufficient_scope", scope="` + string(e.Scope) + `"`}
	case registry.KindRateLimited:
		return map[string]string{"Retry-After": strconv.Itoa(e.RetryAfter)}
	}
	return nil
}

// WriteProblem writes err as problem+json on a plain net/http response, for
// handlers outside the registry (the MCP endpoint's authentication).
func WriteProblem(w http.ResponseWriter, err error) {
	e := registry.AsError(err)
	for k, v := range problemHeaders(e) {
		w.Header().Set(k, v)
	}
	p := e.Problem()
	b, _ := json.Marshal(p)
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	_, _ = w.Write(b)
}

// writeStream serves an event stream as server-sent events until the client
// goes away or the stream ends.
func writeStream(hc huma.Context, st registry.Streamer) {
	hc.SetHeader("Content-Type", "text/event-stream")
	hc.SetHeader("Cache-Control", "no-store")
	hc.SetHeader("X-Accel-Buffering", "no") // proxies must not hold events back
	hc.SetStatus(http.StatusOK)
	w := hc.BodyWriter()
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	_ = st.Stream(hc.Context(), func(event string, data any) error {
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		if event == "" {
			_, err = io.WriteString(w, ": "+string(b)+"\n\n") // a comment keeps the connection alive
		} else {
			_, err = io.WriteString(w, "event: "+event+"\ndata: "+string(b)+"\n\n")
		}
		flush()
		return err
	})
}
