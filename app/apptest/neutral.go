package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/tools"
)

// Request is one call described once, sent on either face: the test
// counterpart of registry.Call.
type Request struct {
	Op      *registry.Operation
	Token   string
	Vars    map[string]string
	Args    map[string]any
	Version *int64
	Key     string          // idempotency key; on MCP, empty means derived
	Confirm string          // confirmation token
	Files   map[string]File // upload files (HTTP only); a valid GPX file by default

	// Header holds further HTTP headers, set last so they win (HTTP only):
	// a malformed If-Match, say.
	Header map[string]string
}

// Outcome is what a face answered, reduced to what both faces share.
type Outcome struct {
	Status int            // the HTTP status, or the problem's status on MCP (200 on success)
	Header http.Header    // the HTTP headers (nil on MCP)
	Type   string         // the problem type; "" on success
	Body   map[string]any // the body, or the structured content
	Raw    []byte         // the body as sent on HTTP; the structured content on MCP
}

// ViaHTTP sends r to the HTTP face.
func (a *App) ViaHTTP(t testing.TB, r Request) Outcome {
	t.Helper()
	path := r.Op.HTTP.Path
	for k, v := range r.Vars {
		path = strings.ReplaceAll(path, "{"+k+"}", url.PathEscape(v))
	}
	var body any
	var headers []string
	if len(r.Op.HTTP.Files) > 0 {
		form, contentType := multipartOf(t, r)
		body, headers = form, append(headers, "Content-Type", contentType)
	} else if r.Op.HTTP.Method == http.MethodGet || r.Op.HTTP.Method == http.MethodDelete {
		q := url.Values{}
		for k, v := range r.Args {
			q.Set(k, fmt.Sprint(v))
		}
		if len(q) > 0 {
			path += "?" + q.Encode()
		}
	} else if r.Args != nil {
		body = r.Args
	}
	if r.Version != nil {
		headers = append(headers, "If-Match", strconv.Quote(strconv.FormatInt(*r.Version, 10)))
	}
	if r.Key != "" {
		headers = append(headers, operations.HeaderIdempotencyKey, r.Key)
	}
	if r.Confirm != "" {
		headers = append(headers, operations.HeaderConfirmationToken, r.Confirm)
	}
	for k, v := range r.Header {
		headers = append(headers, k, v)
	}
	res := a.send(t, stayingClient, r.Op.HTTP.Method, path, r.Token, body, headers...) // a 303 is the answer, not where it leads
	out := Outcome{Status: res.Status, Header: res.Header, Raw: res.Body}
	if len(res.Body) > 0 && strings.Contains(res.Header.Get("Content-Type"), "json") {
		out.Body = res.JSON(t) // a file or a page is kept in Raw only
	}
	if res.Status >= 400 {
		out.Type, _ = out.Body["type"].(string)
	}
	return out
}

// multipartOf renders an upload: the arguments as form fields, and each
// file field of the route that r.Files gives.
func multipartOf(t testing.TB, r Request) (string, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, v := range r.Args {
		if vs, ok := v.([]string); ok {
			for _, x := range vs {
				_ = w.WriteField(k, x)
			}
			continue
		}
		_ = w.WriteField(k, fmt.Sprint(v))
	}
	for _, name := range r.Op.HTTP.Files {
		content, ok := r.Files[name]
		if !ok {
			continue // a file left out, as a client may
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, name, content.Name))
		h.Set("Content-Type", content.ContentType)
		part, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = part.Write(content.Body)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), w.FormDataContentType()
}

// File is an uploaded file of a Request.
type File struct {
	Name, ContentType string
	Body              []byte
}

// ViaMCP sends r as a tools/call on session s. A request without a token is
// sent without a session, as a raw JSON-RPC POST: the endpoint refuses it
// before any session exists.
func (a *App) ViaMCP(t testing.TB, s *mcp.ClientSession, r Request) Outcome {
	t.Helper()
	args := Arguments(r)
	bare := func() Outcome {
		call := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": r.Op.Tool.Name, "arguments": args}}
		res := a.Do(t, http.MethodPost, "/mcp", r.Token, call, "Accept", "application/json, text/event-stream")
		out := Outcome{Status: res.Status, Raw: res.Body, Body: res.JSON(t)}
		out.Type, _ = out.Body["type"].(string)
		return out
	}
	if r.Token == "" {
		return bare()
	}
	if r.Op.Tool.TaskOnly {
		s = a.LegacyMCP(t, r.Token)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if len(r.Op.Tool.Headers) > 0 {
		// A client mirrors the arguments of the tools it listed: the
		// go-sdk's reads the annotations from its cached tools/list.
		_, _ = s.ListTools(ctx, nil)
	}
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: r.Op.Tool.Name, Arguments: args})
	if err != nil {
		// The endpoint refuses some calls at the HTTP level, before the
		// session (a token without the tool's scope: 403, so that a client
		// can step up); the same call sent bare shows that refusal.
		if out := bare(); out.Status == http.StatusUnauthorized || out.Status == http.StatusForbidden {
			return out
		}
		t.Fatalf("call %s: %v", r.Op.Tool.Name, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	out := Outcome{Status: http.StatusOK, Raw: raw}
	if err := json.Unmarshal(raw, &out.Body); err != nil {
		t.Fatalf("%s: structured content is not an object: %s", r.Op.Tool.Name, raw)
	}
	if res.IsError {
		out.Type, _ = out.Body["type"].(string)
		if st, ok := out.Body["status"].(float64); ok {
			out.Status = int(st)
		}
	}
	if conf, ok := out.Body["confirmation"].(map[string]any); ok && !res.IsError {
		// A confirmation request is a result on MCP and a 409 problem on HTTP.
		out.Status, out.Type = http.StatusConflict, operations.ConfirmationType
		out.Body["confirmationToken"] = conf["confirmationToken"]
	}
	return out
}

// Arguments are r's tool arguments: its input, URI variables, version,
// key, confirmation token and action, as the MCP face takes them.
func Arguments(r Request) map[string]any {
	args := map[string]any{}
	for k, v := range r.Args {
		args[k] = v
	}
	for k, v := range r.Vars {
		args[k] = v
	}
	if r.Version != nil {
		args[tools.ArgVersion] = *r.Version
	}
	if r.Key != "" {
		args[tools.ArgIdempotencyKey] = r.Key
	}
	if r.Confirm != "" {
		args[tools.ArgConfirmationToken] = r.Confirm
	}
	if r.Op.Tool.Action != "" {
		args[tools.ArgAction] = r.Op.Tool.Action
	}
	return args
}
