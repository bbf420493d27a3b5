package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Revisions of MCP, as the endpoint names them.
const (
	// Revision20260728 is stateless: server/discover, and each request's
	// _meta carries the protocol version and the client's capabilities.
	Revision20260728 = "2026-07-28"
	// Revision20251125 is the last revision with initialize; served
	// statelessly here, without a session.
	Revision20251125 = "2025-11-25"
)

// MaxBatch is how many messages one JSON-RPC batch may carry, where a
// revision still allows batches (2025-03-26 and older): each call in it
// is guarded and limited on its own, and a small bound keeps one POST
// from carrying thousands of them.
const MaxBatch = 10

// Header names the endpoint reads itself, beside the SDK.
const (
	headerProtocolVersion = "Mcp-Protocol-Version"
	headerSessionID       = "Mcp-Session-Id"
	headerLastEventID     = "Last-Event-ID"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"
)

// Handler serves the face at one endpoint, statelessly: no process keeps
// anything between two requests, so any replica answers any request of a
// conversation and a restart loses nothing. 2026-07-28 is stateless by
// design; older revisions are served without a session (initialize is
// answered, no Mcp-Session-Id is set, and every later request stands on
// its own). GET and DELETE get 405.
func (f *Face) Handler(log *slog.Logger) http.Handler {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server },
		&mcp.StreamableHTTPOptions{Stateless: true, Logger: log, PropagateRequestCancellation: true})
	return screen(sdk)
}

// message is what the endpoint reads of a JSON-RPC message before the SDK
// decodes it.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params struct {
		Name   string `json:"name"`
		TaskID string `json:"taskId"`
	} `json:"params"`
}

// messages decodes a POST body into its messages, one or a batch; nil
// when the body is no JSON-RPC the endpoint can read (the SDK refuses it).
func messages(body []byte) (msgs []message, batch bool) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		if json.Unmarshal(body, &msgs) != nil {
			return nil, true
		}
		return msgs, true
	}
	var m message
	if json.Unmarshal(body, &m) != nil {
		return nil, false
	}
	return []message{m}, false
}

// Called names the tools a body calls (tools/call), in order.
func Called(body []byte) []string {
	msgs, _ := messages(body)
	var names []string
	for _, m := range msgs {
		if m.Method == "tools/call" {
			names = append(names, m.Params.Name)
		}
	}
	return names
}

// screen prepares a request for the SDK's stateless handler:
//   - an inbound Mcp-Session-Id or Last-Event-ID is ignored (dropped): no
//     session and no stream outlives its request here;
//   - a batch past MaxBatch is refused, naming the bound;
//   - a tasks/* request of 2026-07-28 must carry Mcp-Name with its taskId,
//     as tools/call carries its tool's name (checked by the SDK).
func screen(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(headerSessionID)
		r.Header.Del(headerLastEventID)
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		if err != nil {
			next.ServeHTTP(w, r) // the SDK reports what the read met
			return
		}
		msgs, batch := messages(body)
		if batch && len(msgs) > MaxBatch {
			writeError(w, http.StatusBadRequest, nil, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("a JSON-RPC batch carries at most %d messages (MaxBatch); this one carries %d: send them in several requests", MaxBatch, len(msgs)))
			return
		}
		if !batch && len(msgs) == 1 && r.Header.Get(headerProtocolVersion) >= Revision20260728 {
			if m := msgs[0]; taskMethods[m.Method] {
				if got := r.Header.Get(headerName); got != m.Params.TaskID {
					writeError(w, http.StatusBadRequest, m.ID, mcp.CodeHeaderMismatch,
						fmt.Sprintf("header mismatch: %s header %q does not match params.taskId %q", headerName, got, m.Params.TaskID))
					return
				}
				if got := r.Header.Get(headerMethod); got != m.Method {
					writeError(w, http.StatusBadRequest, m.ID, mcp.CodeHeaderMismatch,
						fmt.Sprintf("header mismatch: %s header %q does not match method %q", headerMethod, got, m.Method))
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// taskMethods are the methods of the tasks extension, which name a task.
var taskMethods = map[string]bool{"tasks/get": true, "tasks/update": true, "tasks/cancel": true}

// writeError answers a JSON-RPC error before the SDK saw the request.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id,
		"error": map[string]any{"code": code, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
