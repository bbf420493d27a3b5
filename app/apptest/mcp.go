//lint:file-ignore SA1019 the test client answers sampling, deprecated at 2026-07-28 and still served through its deprecation window

package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/tools"
)

// Wire keeps the body of the last answer a client read, as the server
// sent it: what the client's own types do not decode (a task).
type Wire struct {
	mu   sync.Mutex
	last bytes.Buffer
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
// A tasks method is sent with Mcp-Name naming its task, as 2026-07-28
// asks of every request naming one (the go-sdk sets it for tools,
// prompts and resources only).
func (w *Wire) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && r.Body != nil && r.GetBody != nil {
		if body, err := r.GetBody(); err == nil {
			var msg struct {
				Method string `json:"method"`
				Params struct {
					TaskID string `json:"taskId"`
				} `json:"params"`
			}
			if json.NewDecoder(body).Decode(&msg) == nil && strings.HasPrefix(msg.Method, "tasks/") {
				r = r.Clone(r.Context())
				r.Header.Set("Mcp-Name", msg.Params.TaskID)
			}
		}
	}
	res, err := w.next.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost {
		return res, err
	}
	w.mu.Lock()
	w.last.Reset()
	w.mu.Unlock()
	res.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(res.Body, wireWriter{w}), res.Body}
	return res, nil
}

type wireWriter struct{ w *Wire }

func (x wireWriter) Write(p []byte) (int, error) {
	x.w.mu.Lock()
	defer x.w.mu.Unlock()
	return x.w.last.Write(p)
}

// Last is the body of the last answer read.
func (w *Wire) Last() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return bytes.Clone(w.last.Bytes())
}

// ConnectMCP connects the official go-sdk client to the MCP endpoint at
// url with token (the client speaks 2026-07-28 first, as it does by
// default), ready to send the tasks methods; the Wire keeps the body of
// each answer.
func ConnectMCP(t testing.TB, url, token string, opts ...func(*mcp.ClientOptions)) (*mcp.ClientSession, *Wire) {
	t.Helper()
	return ConnectMCPAt(t, url, token, "", opts...)
}

// ConnectMCPAt is ConnectMCP speaking the given revision ("" for the
// latest the client knows).
func ConnectMCPAt(t testing.TB, url, token, revision string, opts ...func(*mcp.ClientOptions)) (*mcp.ClientSession, *Wire) {
	t.Helper()
	// The client can answer a tool that asks its model (sampling), as
	// desktop agents do: every completion is the same words. It declares
	// neither elicitation nor roots, so confirmations take the token path.
	co := &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Role: "assistant", Model: "apptest", Content: &mcp.TextContent{Text: SampledText}}, nil
	}}
	for _, o := range opts {
		o(co)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "apptest", Version: "1"}, co)
	for _, m := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if err := mcp.AddSendingCustomMethod[*TaskParams, *TaskAnswer](client, m); err != nil {
			t.Fatal(err)
		}
	}
	wire := &Wire{next: bearer{token: token, next: http.DefaultTransport}}
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: wire}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatalf("mcp connect: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, wire
}

// SampledText is what the test client's model answers every completion.
const SampledText = "a completion from the test client"

// WithTasks declares the tasks extension among the client's capabilities.
func WithTasks(o *mcp.ClientOptions) {
	if o.Capabilities == nil {
		o.Capabilities = &mcp.ClientCapabilities{}
	}
	o.Capabilities.AddExtension(tools.TasksExtension, nil)
}

// TaskParams are the params of the tasks methods.
type TaskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
}

// TaskAnswer is a task as tasks/get answers it.
type TaskAnswer struct {
	mcp.ResultBase
	ResultType    string          `json:"resultType"`
	TaskID        string          `json:"taskId"`
	Status        string          `json:"status"`
	StatusMessage string          `json:"statusMessage"`
	Result        json.RawMessage `json:"result"`
	Error         json.RawMessage `json:"error"`
}

var taskIDPattern = regexp.MustCompile(`"resultType":"task"[^}]*?"taskId":"([^"]+)"`)

// CallTask calls a tool that answers a task and returns the task's id,
// read on the wire (the go-sdk knows no tasks). It fails t when the
// answer is no task.
func CallTask(t testing.TB, s *mcp.ClientSession, w *Wire, tool string, args any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args}); err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	m := taskIDPattern.FindSubmatch(w.Last())
	if m == nil {
		t.Fatalf("call %s answered no task: %s", tool, w.Last())
	}
	return string(m[1])
}

// GetTask sends tasks/get.
func GetTask(ctx context.Context, s *mcp.ClientSession, id string) (*TaskAnswer, error) {
	return mcp.CallCustomMethod[*TaskParams, *TaskAnswer](ctx, s, "tasks/get", &TaskParams{TaskID: id})
}

// FollowTask polls a task until it leaves "working", and returns it.
func FollowTask(t testing.TB, s *mcp.ClientSession, id string) *TaskAnswer {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		got, err := GetTask(ctx, s, id)
		cancel()
		if err != nil {
			t.Fatalf("tasks/get %s: %v", id, err)
		}
		if got.Status != tools.TaskWorking {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s still working: %s", id, got.StatusMessage)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Current sends one JSON-RPC request to /mcp as a 2026-07-28 client
// writes it by hand: the protocol headers, and the per-request _meta with
// the revision and caps as the client's capabilities; params is the rest.
// It returns the JSON-RPC answer (result or error), decoded.
func (a *App) Current(t testing.TB, token, method, name string, caps map[string]any, params map[string]any) map[string]any {
	t.Helper()
	p := map[string]any{"_meta": map[string]any{
		mcp.MetaKeyProtocolVersion:    tools.Revision20260728,
		mcp.MetaKeyClientCapabilities: caps,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "apptest", "version": "1"},
	}}
	for k, v := range params {
		p[k] = v
	}
	headers := []string{"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", tools.Revision20260728, "Mcp-Method", method}
	if name != "" {
		headers = append(headers, "Mcp-Name", name)
	}
	res := a.Do(t, http.MethodPost, "/mcp", token, map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p}, headers...)
	body := res.Body
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(res.Body), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				body = []byte(data)
			}
		}
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s answered no JSON-RPC (%d): %s", method, res.Status, res.Body)
	}
	return out
}

// WithViews declares the MCP Apps extension among the client's
// capabilities, with the view type among its types, as a host that shows
// views does.
func WithViews(o *mcp.ClientOptions) {
	if o.Capabilities == nil {
		o.Capabilities = &mcp.ClientCapabilities{}
	}
	o.Capabilities.AddExtension(tools.UIExtension, map[string]any{"mimeTypes": []string{tools.ViewMIMEType}})
}
