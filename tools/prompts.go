package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/registry"
)

// mountPrompts adds the registry's prompts to the server. A prompt is
// offered like a tool: prompts/list lists only those the caller's token may
// get, and prompts/get answers one it may not as unknown, so a token learns
// nothing of what it cannot use.
func (f *Face) mountPrompts(reg *registry.Registry) {
	f.prompts = map[string]registry.Prompt{}
	for _, p := range reg.Prompts() {
		f.prompts[p.Name] = p
		mp := &mcp.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			mp.Arguments = append(mp.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		f.server.AddPrompt(mp, f.promptHandler(p))
	}
}

// mayGet reports whether the principal (nil: no token) may get prompt p.
func mayGet(pr *registry.Principal, p registry.Prompt) bool {
	return p.Scope == registry.Public || (pr != nil && pr.Has(p.Scope))
}

// principal resolves the bearer token of an MCP request, as the
// authenticate guard does; nil without one or with one it refuses.
func (f *Face) principal(ctx context.Context, req mcp.Request) *registry.Principal {
	if f.auth == nil {
		return nil
	}
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return nil
	}
	p, _ := f.auth.Principal(ctx, registry.BearerCredential(extra.Header.Get("Authorization")))
	return p
}

func (f *Face) promptHandler(p registry.Prompt) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if !mayGet(f.principal(ctx, req), p) {
			return nil, unknownPrompt(p.Name)
		}
		args := req.Params.Arguments
		if bad := promptArgumentProblems(p, args); len(bad) > 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: "prompt " + p.Name + ": " + strings.Join(bad, "; ")}
		}
		var msgs []registry.Message
		var err error
		if p.Asking != nil {
			var asked *registry.InputRequired
			in := registry.PromptInput{Askable: askable(req.ProtocolVersion(), req.ClientCapabilities()), Answers: answersOf(req.Params.InputResponses)}
			msgs, err = f.renderAsking(ctx, req, p, in)
			if errors.As(err, &asked) {
				if cannot, refusal := unaskable(asked, in.Askable, req.ProtocolVersion()); refusal != nil {
					return nil, refusal
				} else if cannot {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "prompt " + p.Name + ": " + registry.AsError(err).Detail}
				}
				return &mcp.GetPromptResult{InputRequests: inputRequests(asked).InputRequests, RequestState: asked.State}, nil
			}
		} else {
			msgs, err = p.Render(ctx, args)
		}
		if refused := stateRefused(err); refused != nil {
			return nil, refused
		}
		if err != nil {
			var e *registry.Error
			if errors.As(err, &e) && e.Kind != registry.KindInternal {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "prompt " + p.Name + ": " + e.Detail}
			}
			f.log.ErrorContext(ctx, "prompt failed", "prompt", p.Name, "err", err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "prompt " + p.Name + " could not be rendered"}
		}
		out := &mcp.GetPromptResult{Description: p.Description, Messages: make([]*mcp.PromptMessage, len(msgs))}
		for i, m := range msgs {
			out.Messages[i] = &mcp.PromptMessage{Role: mcp.Role(m.Role), Content: blocks([]registry.Block{m.Block})[0]}
		}
		return out, nil
	}
}

// renderAsking renders a prompt that may ask its caller for input, through
// the chain's Asking: its state is sealed for this caller, this prompt and
// these arguments, as a tool handler's is.
func (f *Face) renderAsking(ctx context.Context, req *mcp.GetPromptRequest, p registry.Prompt, in registry.PromptInput) ([]registry.Message, error) {
	raw := make(map[string]json.RawMessage, len(req.Params.Arguments))
	for k, v := range req.Params.Arguments {
		raw[k], _ = json.Marshal(v)
	}
	c := &registry.Call{Face: registry.FaceMCP, Op: &registry.Operation{ID: "prompt." + p.Name},
		Principal: f.principal(ctx, req), Args: raw, SentState: req.Params.RequestState}
	var msgs []registry.Message
	err := f.chain.Asking(ctx, c, func() error {
		in.State = c.InputState
		var err error
		msgs, err = p.Asking(ctx, req.Params.Arguments, in)
		return err
	})
	return msgs, err
}

// promptArgumentProblems names each required argument missing and each
// argument the prompt does not declare, sorted.
func promptArgumentProblems(p registry.Prompt, args map[string]string) []string {
	var out []string
	declared := map[string]bool{}
	for _, a := range p.Arguments {
		declared[a.Name] = true
		if _, ok := args[a.Name]; a.Required && !ok {
			out = append(out, fmt.Sprintf("argument %s is required", a.Name))
		}
	}
	for name := range args {
		if !declared[name] {
			out = append(out, fmt.Sprintf("argument %s is not an argument of this prompt", name))
		}
	}
	sort.Strings(out)
	return out
}

func unknownPrompt(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", name)}
}

// keepGettable narrows a prompts/list answer to the prompts the caller may
// get.
func (f *Face) keepGettable(ctx context.Context, req mcp.Request, list *mcp.ListPromptsResult) *mcp.ListPromptsResult {
	pr := f.principal(ctx, req)
	kept := make([]*mcp.Prompt, 0, len(list.Prompts))
	for _, p := range list.Prompts {
		if d, ok := f.prompts[p.Name]; ok && mayGet(pr, d) {
			kept = append(kept, p)
		}
	}
	out := *list
	out.Prompts = kept
	return &out
}
