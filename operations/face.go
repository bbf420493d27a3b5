// Package operations is the HTTP face: one huma operation per declaration,
// with path, query, headers and body mapped onto the neutral registry.Call,
// the shared guard chain run on it, and refusals written as RFC 9457
// problem+json. Nothing here decides whether a call is allowed.
package operations

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
)

// Headers of the HTTP face.
const (
	HeaderIdempotencyKey    = "Idempotency-Key"
	HeaderConfirmationToken = "Confirmation-Token"
	// HeaderRateLimitPolicy and HeaderRateLimit describe the limit a 429
	// reached, beside Retry-After.
	HeaderRateLimitPolicy = "RateLimit-Policy"
	HeaderRateLimit       = "RateLimit"
	// HeaderIdempotentReplayed marks an answer that replays a first creation.
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

// DefaultMaxBody bounds a JSON body when no limit is configured.
const DefaultMaxBody = 1 << 20

// DefaultStreamRecheck is how often an open event stream re-checks its
// credential when no interval is set.
const DefaultStreamRecheck = 5 * time.Second

// Face serves the registry over HTTP.
type Face struct {
	api         huma.API
	chain       *guards.Chain
	schemas     *Schemas
	log         *slog.Logger
	now         func() time.Time
	maxBody     int64
	streamCheck time.Duration
	trusted     []netip.Prefix   // proxies whose X-Forwarded-For is believed
	base        string           // public_url: what makes a Location absolute (location.go)
	tickets     progress.Tickets // stream tickets (stream.go); nil: none accepted
	locales     *registry.Locales
}

// TrustProxies sets the reverse proxies whose X-Forwarded-For names the
// caller (ClientAddress); without any, the connection's peer is the caller.
func (f *Face) TrustProxies(trusted []netip.Prefix) { f.trusted = trusted }

// New returns the HTTP face over api, running chain. A JSON body over
// maxBody bytes is refused with 413, as LimitBody refuses one on /mcp.
func New(api huma.API, chain *guards.Chain, schemas *Schemas, log *slog.Logger, maxBody int64) *Face {
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	return &Face{api: api, chain: chain, schemas: schemas, log: log, now: time.Now, maxBody: maxBody,
		streamCheck: DefaultStreamRecheck}
}

// RecheckStreams sets how often an open event stream judges its
// credential again (guards.Chain.Recheck): a stream whose token was revoked
// or expired meanwhile is closed at the next check. Keep it at most the
// token cache's lifetime, so a revocation reaches streams as soon as it
// reaches new calls.
func (f *Face) RecheckStreams(every time.Duration) {
	if every > 0 {
		f.streamCheck = every
	}
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
			WriteProblem(w, r, TooLarge(max))
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
	f.locales = reg.Locales() // locale.go
	// Suffixed routes share a router pattern: suffix.go.
	f.mount(reg.Operations())
	f.introduce(reg.Operations()) // the opening of /docs: docs_intro.go
}

func (f *Face) handler(op *registry.Operation) func(huma.Context) {
	return func(hc huma.Context) {
		c := &registry.Call{Op: op, Face: registry.FaceHTTP, Now: f.now(), Vars: map[string]string{}}
		c.RequestID = registry.RequestID(hc.Context())
		c.Credential = registry.BearerCredential(hc.Header("Authorization"))
		c.ClientAddr = ClientAddress(hc.RemoteAddr(), hc.Header("X-Forwarded-For"), f.trusted)
		c.Cookies = cookies(hc.Header("Cookie"))
		for _, v := range op.URIVariables() {
			c.Vars[v] = hc.Param(v)
		}
		if streams(op) && !f.streamCredential(hc, c) { // stream.go
			return
		}
		negotiate(hc, c)
		f.speak(hc, c)
		switch {
		case op.HTTP.Method == http.MethodGet || op.HTTP.Method == http.MethodDelete:
			u := hc.URL()
			c.Args = f.formArgs(op, withoutTicket(op, u.Query()))
		case len(op.HTTP.Files) > 0 && c.Credential == "":
			// Nothing is read for a caller authenticate will refuse.
		case len(op.HTTP.Files) > 0:
			form, files, refused, cleanup, unreadable := readMultipart(hc, op.HTTP.Files)
			defer cleanup() // spooled files go when the request is answered
			c.Args, c.Files, c.Unreadable = f.formArgs(op, form), files, unreadable
			if unreadable == tooLargeUpload && len(op.HTTP.Files) == 1 {
				c.UnreadableIn = op.HTTP.Files[0] // the one file is what is too large
			}
			c.Refused = append(refused, f.repeatedFields(op, form)...)
			slices.SortFunc(c.Refused, func(a, b registry.Violation) int { return strings.Compare(a.Field, b.Field) })
		case takesForm(hc, op): // form.go
			if !f.readForm(hc, c) {
				return
			}
		case !jsonMediaType(hc.Header("Content-Type")) && hc.Header("Content-Length") != "0":
			// Nothing is read of a body that says it is not JSON.
			writeUnsupportedMediaType(hc, c)
			return
		default:
			var tooLarge bool
			c.Args, c.Unreadable, tooLarge = readBody(hc, f.maxBody)
			if tooLarge {
				f.writeError(hc, c, TooLarge(f.maxBody))
				return
			}
		}
		switch im := strings.TrimSpace(hc.Header("If-Match")); im {
		case "":
		case "*":
			c.AnyVersion = true
		default:
			c.WeakVersion = strings.HasPrefix(im, "W/")
			c.ExpectedVersion, c.VersionMalformed = parseETag(im)
		}
		c.IdempotencyKey = hc.Header(HeaderIdempotencyKey)
		c.ConfirmationToken = hc.Header(HeaderConfirmationToken)

		err := f.chain.Run(hc.Context(), c)
		switch {
		case err != nil:
			f.writeError(hc, c, err)
		case c.Confirmation != nil:
			writeConfirmation(hc, c, c.Confirmation)
		default:
			f.writeOutput(hc, c, c.Output)
		}
	}
}

// UnsupportedMediaType is the problem type of a body that is not JSON.
const UnsupportedMediaType = registry.ProblemTypeBase + "unsupported-media-type"

// jsonMediaType reports whether a Content-Type is JSON (application/json,
// or a +json type such as application/merge-patch+json). A request that
// names none is read as JSON.
func jsonMediaType(ct string) bool {
	if strings.TrimSpace(ct) == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// writeUnsupportedMediaType answers 415 naming the media types accepted
// (RFC 9110 §15.5.16; Accept-Patch for a PATCH, RFC 5789). It comes before
// authentication, as the size limit does: it says nothing of any record.
func writeUnsupportedMediaType(hc huma.Context, c *registry.Call) {
	accepted := "application/json"
	if c.Op.HTTP.Method == http.MethodPatch {
		accepted = "application/merge-patch+json, application/json"
		hc.SetHeader("Accept-Patch", accepted)
	}
	hc.SetHeader("Accept", accepted)
	writeJSON(hc, http.StatusUnsupportedMediaType, "application/problem+json", registry.Problem{
		Type: UnsupportedMediaType, Title: http.StatusText(http.StatusUnsupportedMediaType),
		Status: http.StatusUnsupportedMediaType, RequestID: c.RequestID,
		Detail: "the request body must be JSON (" + accepted + ")",
	})
}

// noneMatch reports whether an If-None-Match list names etag, compared
// weakly as RFC 9110 §13.1.2 asks, or is "*".
func noneMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// parseETag reads "3", W/"3", 3, or a read's "3-<hash>" (the version is
// what a write is conditional on). Anything else is marked malformed, and
// the precondition guard refuses it after authentication, as it refuses a
// version argument that is not an integer on MCP.
func parseETag(s string) (*int64, bool) {
	s = strings.Trim(strings.TrimPrefix(strings.TrimSpace(s), "W/"), `"`)
	if version, hash, ok := strings.Cut(s, "-"); ok {
		if hash == "" || strings.Trim(hash, "0123456789abcdefghijklmnopqrstuvwxyz") != "" {
			return nil, true
		}
		s = version
	}
	v, err := strconv.ParseInt(s, 10, 64)
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

// formMemory is how much of a multipart form is held in memory; a file
// past it is spooled to disk as it arrives. The standard reader's buffer
// grows by doubling to hold it, so at 8 MB a 30 MB upload allocated 31 MB
// before it reached the disk.
const formMemory = 1 << 20

// readMultipart reads a multipart form: its fields, and the declared files
// kept in memory or spooled to disk by the standard library. A file part
// the operation does not declare, or a declared one sent more than once, is
// named among the refused parts: taking one of two files, or none of an
// unknown one, would answer for a file the caller did not mean.
func readMultipart(hc huma.Context, fileFields []string) (url.Values, map[string]registry.File, []registry.Violation, func(), string) {
	nothing := func() {}
	mt, params, err := mime.ParseMediaType(hc.Header("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, nil, nil, nothing, "the request must be multipart/form-data"
	}
	body := &countingReader{r: io.LimitReader(hc.BodyReader(), MaxUpload+1)}
	form, err := multipart.NewReader(body, params["boundary"]).ReadForm(formMemory)
	switch {
	case err != nil && body.n > MaxUpload:
		return nil, nil, nil, nothing, tooLargeUpload
	case err != nil:
		return nil, nil, nil, nothing, "the multipart body could not be read"
	}
	cleanup := func() { _ = form.RemoveAll() }
	var refused []registry.Violation
	for name, fhs := range form.File {
		switch {
		case !slices.Contains(fileFields, name):
			refused = append(refused, registry.Violation{Field: registry.Clip(name), Reason: "is not a file of this operation; remove it"})
		case len(fhs) > 1:
			refused = append(refused, registry.Violation{Field: registry.Clip(name), Reason: fmt.Sprintf("is sent %d times; send one file", len(fhs))})
		}
	}
	files := map[string]registry.File{}
	for _, name := range fileFields {
		if fhs := form.File[name]; len(fhs) > 0 {
			fh := fhs[0]
			files[name] = registry.NewFile(fh.Filename, fh.Header.Get("Content-Type"), fh.Size,
				func() (io.ReadCloser, error) { return fh.Open() })
		}
	}
	return url.Values(form.Value), files, refused, cleanup, ""
}

// tooLargeUpload is the refusal of a multipart body over MaxUpload.
const tooLargeUpload = "the upload is larger than 31 MB; nothing was read past it"

// countingReader counts what was read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// repeatedFields names the form fields sent more than once whose schema is
// not a list: formArgs keeps one value of such a field, so the others would
// be dropped unseen.
func (f *Face) repeatedFields(op *registry.Operation, values url.Values) []registry.Violation {
	schema := f.schemas.Resolved(op.InputType)
	var out []registry.Violation
	for name, vs := range values {
		if p := schema.Properties[strings.TrimSuffix(name, "[]")]; len(vs) > 1 && (p == nil || p.Type != "array") {
			out = append(out, registry.Violation{Field: registry.Clip(name), Reason: fmt.Sprintf("is sent %d times; send it once", len(vs))})
		}
	}
	return out
}

func (f *Face) writeOutput(hc huma.Context, c *registry.Call, out any) {
	op := c.Op
	answerIn(hc, c, out)
	tagged := false
	if tg, ok := out.(registry.Tagged); ok && op.HTTP.Method == http.MethodGet && tg.EntityTag() != "" {
		etag := strconv.Quote(tg.EntityTag())
		hc.SetHeader("ETag", etag)
		hc.SetHeader("Cache-Control", "no-cache")
		if noneMatch(hc.Header("If-None-Match"), etag) {
			hc.SetStatus(http.StatusNotModified)
			return
		}
		tagged = true
	}
	if writeNegotiated(hc, c, out, tagged) {
		return
	}
	if writeRedirect(hc, c, out) { // form.go
		return
	}
	if st, ok := out.(registry.Streamer); ok {
		f.writeStream(hc, c, st)
		return
	}
	if d, ok := out.(registry.Download); ok {
		hc.SetHeader("Content-Type", d.ContentType())
		hc.SetHeader("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.FileName()}))
		hc.SetStatus(op.HTTP.Status)
		_ = d.WriteFile(hc.BodyWriter()) // the status is sent: a failure can only cut the file short
		return
	}
	if pg, ok := out.(registry.Page); ok {
		writePage(hc, op.HTTP.Status, pg, tagged)
		return
	}
	var body []byte // marshalled early only when a read's tag needs it
	if v, ok := out.(registry.Versioned); ok && !tagged {
		version := strconv.FormatInt(v.ResourceVersion(), 10)
		if op.HTTP.Method != http.MethodGet {
			hc.SetHeader("ETag", strconv.Quote(version))
		} else if b, err := registry.Encode(out); err == nil {
			body = b
			etag := representationTag(version, b)
			hc.SetHeader("ETag", etag)
			if noneMatch(hc.Header("If-None-Match"), etag) {
				hc.SetStatus(http.StatusNotModified)
				return
			}
		}
	}
	if c.Replayed {
		hc.SetHeader(HeaderIdempotentReplayed, "true")
	}
	status := op.HTTP.Status
	if cs, ok := out.(registry.CookieSetter); ok {
		for _, ck := range cs.SetCookies() {
			hc.AppendHeader("Set-Cookie", ck.String())
		}
	}
	if sc, ok := out.(registry.StatusChooser); ok && sc.ResponseStatus() != 0 {
		status = sc.ResponseStatus()
	}
	if l, ok := out.(registry.Located); ok && (status == http.StatusCreated || status == http.StatusAccepted) {
		hc.SetHeader("Location", f.locate(l.ResourceLocation()))
	}
	if status == http.StatusNoContent {
		hc.SetStatus(status)
		return
	}
	if body != nil {
		writeBytes(hc, status, "application/json", body)
		return
	}
	writeJSON(hc, status, "application/json", out)
}

// representationTag is a read's ETag: the structural version, then a hash
// of the answer. A read can change while the version stands (a share made,
// days computed), and If-None-Match must then not answer 304; If-Match
// reads only the version before the dash (parseETag), so a read's tag
// still guards a write.
//
// The hash is two CRC-32s of the answer under different polynomials, 64
// bits in all: both are computed by the processor's own instructions, a
// tenth of the cost of a byte-at-a-time hash on a read this cheap.
func representationTag(version string, body []byte) string {
	sum := uint64(crc32.Checksum(body, castagnoli))<<32 | uint64(crc32.ChecksumIEEE(body))
	return `"` + version + "-" + strconv.FormatUint(sum, 36) + `"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func writeJSON(hc huma.Context, status int, contentType string, v any) {
	b, err := registry.Encode(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"title":"Internal Server Error","status":500}`)
		contentType = "application/problem+json"
	}
	writeBytes(hc, status, contentType, b)
}

func writeBytes(hc huma.Context, status int, contentType string, b []byte) {
	hc.SetHeader("Content-Type", contentType)
	// A known length spares the server chunked encoding and the client
	// reading to the end to know it.
	hc.SetHeader("Content-Length", strconv.Itoa(len(b)))
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

func writeConfirmation(hc huma.Context, c *registry.Call, req *registry.ConfirmationRequest) {
	hc.SetHeader(HeaderConfirmationToken, req.Token)
	writeJSON(hc, http.StatusConflict, "application/problem+json", ConfirmationProblem{
		Problem: registry.Problem{
			Type: ConfirmationType, Title: "Confirmation required", Status: http.StatusConflict,
			Detail:    "nothing was written; repeat the same request with the Confirmation-Token header to act",
			RequestID: c.RequestID,
		},
		Impact: req.Impact, ConfirmationToken: req.Token, ExpiresAt: req.ExpiresAt,
	})
}

func (f *Face) writeError(hc huma.Context, c *registry.Call, err error) {
	e := registry.AsError(err)
	switch e.Kind {
	case registry.KindInternal:
		f.log.ErrorContext(hc.Context(), "operation failed", "op", c.Op.ID, "face", c.Face, "err", err)
	case registry.KindUnavailable:
		f.log.WarnContext(hc.Context(), "operation refused: a dependency is down", "op", c.Op.ID, "face", c.Face, "err", err)
	}
	// A page refuses with the same headers as a problem: a 429 or a 503
	// says when to come back to a browser as well.
	for k, v := range problemHeaders(hc.Context(), e, hc.Header("Authorization") != "") {
		hc.SetHeader(k, v)
	}
	if writeRefusalPage(hc, c, e) {
		return
	}
	p := f.locales.Problem(e, c.Locale)
	p.RequestID = c.RequestID
	answerIn(hc, c, nil)
	writeJSON(hc, p.Status, "application/problem+json", p)
}

// problemHeaders are what a refusal carries besides its body: the bearer
// challenge of a 401 or 403 (BearerChallenge), the wait of a 429 or a 503.
func problemHeaders(ctx context.Context, e *registry.Error, tokenSent bool) map[string]string {
	switch e.Kind {
	case registry.KindUnauthenticated, registry.KindForbidden:
		return map[string]string{"WWW-Authenticate": BearerChallenge(ctx, e, tokenSent)}
	case registry.KindRateLimited:
		h := map[string]string{"Retry-After": strconv.Itoa(e.RetryAfter)}
		if r := e.Rule; r != nil {
			// draft-ietf-httpapi-ratelimit-headers: the policy reached, and
			// nothing left of it until the wait is over.
			name := strconv.Quote(r.PolicyName())
			h[HeaderRateLimitPolicy] = fmt.Sprintf("%s;q=%d;w=%d", name, r.Limit, int(r.Window.Seconds()))
			h[HeaderRateLimit] = fmt.Sprintf("%s;r=0;t=%d", name, e.RetryAfter)
		}
		return h
	case registry.KindUnavailable:
		if e.RetryAfter > 0 {
			return map[string]string{"Retry-After": strconv.Itoa(e.RetryAfter)}
		}
	}
	return nil
}

// WriteProblem writes err as problem+json on a plain net/http response, for
// handlers outside the registry (the MCP endpoint's authentication), with
// the request's id.
func WriteProblem(w http.ResponseWriter, r *http.Request, err error) {
	e := registry.AsError(err)
	for k, v := range problemHeaders(r.Context(), e, r.Header.Get("Authorization") != "") {
		w.Header().Set(k, v)
	}
	writeProblem(w, r, e.Problem())
}

func writeProblem(w http.ResponseWriter, r *http.Request, p registry.Problem) {
	p.RequestID = registry.RequestID(r.Context())
	b, _ := json.Marshal(p)
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	_, _ = w.Write(b)
}

// OriginNotAllowedType is the problem type of a request from a browser
// page whose origin is not allowed.
const OriginNotAllowedType = registry.ProblemTypeBase + "origin-not-allowed"

// RequireOrigin refuses (403) a request whose Origin header names an origin
// that allowed does not accept, "null" included, before next reads
// anything: a page elsewhere must not drive the endpoint with a user's
// token. A request without Origin does not come from a browser page and
// goes on.
func RequireOrigin(allowed func(origin string) bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !allowed(o) {
			writeProblem(w, r, registry.Problem{
				Type: OriginNotAllowedType, Title: http.StatusText(http.StatusForbidden), Status: http.StatusForbidden,
				Detail: "requests from this origin are not allowed; a page served elsewhere needs its origin in allowed_origins",
			})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// pagePolicy lets a page run its own inline script and style and talk to
// this server only: nothing is loaded from elsewhere, nothing may frame it.
const pagePolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// writePage sends a page inline, never cached: it may hold what a link
// carried.
func writePage(hc huma.Context, status int, pg registry.Page, tagged bool) {
	var b bytes.Buffer
	if err := pg.WritePage(&b); err != nil {
		hc.SetStatus(http.StatusInternalServerError)
		return
	}
	hc.SetHeader("Content-Type", "text/html; charset=utf-8")
	hc.SetHeader("Content-Security-Policy", policyOf(pg))
	// A page frames nowhere: frame-ancestors for the browsers that read
	// the policy, X-Frame-Options for those that do not.
	hc.SetHeader("X-Frame-Options", "DENY")
	if !tagged { // a tagged page is kept and revalidated (no-cache, set above)
		hc.SetHeader("Cache-Control", "no-store")
	}
	hc.SetHeader("Referrer-Policy", "no-referrer")
	hc.SetHeader("X-Content-Type-Options", "nosniff")
	hc.SetStatus(status)
	_, _ = hc.BodyWriter().Write(b.Bytes())
}
