package tools

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/registry"
)

// ConfirmInput is the key of the confirmation's input request in a multi
// round-trip answer, and of the client's response in its retry.
const ConfirmInput = "confirm"

// ImpactMeta is the _meta key of an input request that carries a
// confirmation's impact as data (the message carries it in words).
const ImpactMeta = "cairn.dev/impact"

// revision is the MCP revision a call speaks: its _meta for 2026-07-28,
// else the session's (older revisions).
func revision(req *mcp.CallToolRequest) string {
	return req.ProtocolVersion()
}

// asksInBand reports whether a call can be asked for input in its answer
// (a multi round-trip request): 2026-07-28, and a client that declared
// elicitation in this request's capabilities.
func asksInBand(req *mcp.CallToolRequest) bool {
	if revision(req) < Revision20260728 {
		return false
	}
	caps := req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil
}

// confirmation maps a multi round-trip retry onto the call: the
// requestState is the confirmation token the first round issued, untrusted
// like any token (the confirm guard consumes it only for this user, this
// operation and these exact arguments, once); an acceptance sends it, a
// decline or a cancel spends it and answers the refusal of a declined
// confirmation. A retry without an answer is asked again.
func confirmation(req *mcp.CallToolRequest, c *registry.Call) {
	state := req.Params.RequestState
	if state == "" || c.ConfirmationToken != "" {
		return
	}
	answer, _ := req.Params.InputResponses[ConfirmInput].(*mcp.ElicitResult)
	switch {
	case answer == nil:
		return // asked again, with a fresh token
	case answer.Action == "accept":
		c.ConfirmationToken = state
	default:
		c.DeclinedToken = state
	}
}

// inputRequired answers a confirmation as a multi round-trip request: the
// impact in words and as data, accept or decline, and the confirmation
// token as the requestState the client sends back with its answer.
func inputRequired(req *registry.ConfirmationRequest) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{ConfirmInput: &mcp.ElicitParams{
			Meta:            mcp.Meta{ImpactMeta: req.Impact},
			Message:         impactWords(req.Impact) + "\nAccept to proceed, decline to leave everything as it is.",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
		}},
		RequestState: req.Token,
	}
}

// impactWords is an impact as a person reads it.
func impactWords(im registry.Impact) string {
	var b strings.Builder
	b.WriteString(im.Summary)
	for _, l := range im.Loses {
		b.WriteString("\n- " + l)
	}
	return b.String()
}
