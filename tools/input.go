// Sampling and roots are deprecated at 2026-07-28 (SEP-2577) and still
// served through their deprecation window: a handler may ask for them.
//lint:file-ignore SA1019 asking a client for sampling or roots is served until the deprecation window ends

package tools

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/registry"
)

// askable are the kinds of input a call can be asked for in its answer (a
// multi round-trip request): those the client declared in this request's
// capabilities, at 2026-07-28. Older revisions are served statelessly, where
// a server request has no way back: nothing is askable there. A roots
// capability is told by its listChanged flag, the one field the SDK keeps.
func askable(version string, caps *mcp.ClientCapabilities) map[registry.InputKind]bool {
	if version < Revision20260728 || caps == nil {
		return nil
	}
	return map[registry.InputKind]bool{
		registry.InputForm:   caps.Elicitation != nil,
		registry.InputSample: caps.Sampling != nil,
		registry.InputRoots:  caps.Roots.ListChanged || caps.RootsV2 != nil,
	}
}

// answersOf are the client's answers as the call reads them.
func answersOf(responses mcp.InputResponseMap) map[string]registry.InputAnswer {
	if len(responses) == 0 {
		return nil
	}
	out := make(map[string]registry.InputAnswer, len(responses))
	for key, r := range responses {
		switch r := r.(type) {
		case *mcp.ElicitResult:
			out[key] = registry.InputAnswer{Kind: registry.InputForm, Action: r.Action, Values: r.Content}
		case *mcp.CreateMessageWithToolsResult:
			out[key] = registry.InputAnswer{Kind: registry.InputSample, Text: samplingText(r.Content)}
		case *mcp.CreateMessageResult:
			out[key] = registry.InputAnswer{Kind: registry.InputSample, Text: samplingText([]mcp.Content{r.Content})}
		case *mcp.ListRootsResult:
			a := registry.InputAnswer{Kind: registry.InputRoots}
			for _, root := range r.Roots {
				if root != nil {
					a.Roots = append(a.Roots, root.URI)
				}
			}
			out[key] = a
		}
	}
	return out
}

func samplingText(cs []mcp.Content) string {
	var s string
	for _, c := range cs {
		if t, ok := c.(*mcp.TextContent); ok {
			s += t.Text
		}
	}
	return s
}

// inputRequests answers a handler's request for input as a multi
// round-trip result: each request under its key, and the sealed state.
func inputRequests(ir *registry.InputRequired) *mcp.CallToolResult {
	reqs := make(mcp.InputRequestMap, len(ir.Requests))
	for key, r := range ir.Requests {
		switch r.Kind {
		case registry.InputForm:
			schema := r.Schema
			if schema == nil {
				schema = map[string]any{"type": "object", "properties": map[string]any{}}
			}
			reqs[key] = &mcp.ElicitParams{Message: r.Message, RequestedSchema: schema}
		case registry.InputSample:
			reqs[key] = &mcp.CreateMessageParams{MaxTokens: int64(max(r.MaxTokens, 1)),
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: r.Message}}}}
		case registry.InputRoots:
			reqs[key] = &mcp.ListRootsParams{}
		}
	}
	return &mcp.CallToolResult{InputRequests: reqs, RequestState: ir.State}
}

// unaskable answers a handler's request for input the client cannot
// answer: at 2026-07-28, -32021 naming the capabilities it did not declare
// (a server must not rely on a capability the client did not declare);
// cannot is false when every request can be asked. Older revisions, which
// have no way to ask, get the refusal of a face that cannot ask (cannot
// without a refusal).
func unaskable(ir *registry.InputRequired, askable map[registry.InputKind]bool, version string) (cannot bool, refusal error) {
	missing := map[string]any{}
	for _, r := range ir.Requests {
		if !askable[r.Kind] {
			missing[string(r.Kind)] = map[string]any{}
		}
	}
	switch {
	case len(missing) == 0:
		return false, nil
	case version < Revision20260728:
		return true, nil
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": missing})
	return true, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: "this call needs input the client did not declare it can give: declare it in the request's client capabilities",
		Data:    data}
}

// stateRefused is the JSON-RPC answer to a requestState that is not one the
// server sealed for this call: a protocol error, not a tool's.
func stateRefused(err error) error {
	var e *registry.Error
	if !errors.As(err, &e) || e != registry.ErrInputState {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Detail}
}
