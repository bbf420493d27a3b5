// Package conformance is a product written against Cairn's public packages
// for the official MCP conformance suite: it declares the suite's fixture
// tools through the registry, every guard field written, so the suite
// judges Cairn's MCP face (the guard chain, the results, the transport of
// both revisions) and not a bare SDK server.
//
// It declares the fixtures whose answers are content of their own (text,
// an image, a sound, embedded resources), a tool error, the tasks
// extension's greet (never a task) and background jobs (jobs.go), the
// resources a client reads (resources.go), a tool whose input schema is
// stated verbatim and one whose arguments are mirrored in headers
// (schema.go).
package conformance

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"go.uber.org/fx"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/tokens"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// The product's scopes.
const (
	// ScopeUse calls its fixture tools.
	ScopeUse registry.Scope = "conformance:use"
	// ScopePrompts gets its prompts.
	ScopePrompts registry.Scope = "conformance:prompts"
)

// Version is the product's version.
const Version = "0.1.0"

// Product is the conformance product as the framework composes it, its
// tokens in memory.
func Product() app.Product {
	return app.Product{
		Name:         "cairn-conformance",
		Title:        "Cairn conformance fixtures",
		Version:      Version,
		Description:  "The official MCP conformance suite's fixtures, declared as a Cairn product.",
		Instructions: "Fixtures of the MCP conformance suite; each tool answers what the suite expects of it.",
		Modules: []app.Module{
			{Name: "fixtures", Options: fx.Provide(func() contributed { return contributed{Declare: Declare} })},
			{Name: "tokens", Options: fx.Provide(tokens.NewMemory,
				func(m *tokens.Memory) guards.Authenticator { return m },
				func(m *tokens.Memory) app.TokenIssuer { return m })},
		},
	}
}

type contributed struct {
	fx.Out
	Declare registry.Declarer `group:"declarations"`
}

// NoInput is the input of the fixtures that take none.
type NoInput struct{}

// GreetInput names who greet greets.
type GreetInput struct {
	Name string `json:"name,omitempty" maxLength:"100" doc:"Who to greet."`
}

// ErrorInput asks test_error_handling to succeed: the suite calls it
// without, and a call that succeeds is the valid call the kit needs.
type ErrorInput struct {
	Succeed bool `json:"succeed,omitempty" doc:"Answer a text instead of failing."`
}

// Answer is a fixture's answer: its content blocks, published as its JSON
// too (the HTTP twin's body).
type Answer struct {
	Blocks []AnswerBlock `json:"content" doc:"The content, block by block."`
}

// AnswerBlock is one block of an Answer.
type AnswerBlock struct {
	Type     string `json:"type" doc:"text, image, audio or resource."`
	Text     string `json:"text,omitempty" text:"own" doc:"The text, for a text or a text resource."`
	Data     []byte `json:"data,omitempty" doc:"The bytes, base64, for an image or a sound."`
	MIMEType string `json:"mimeType,omitempty" doc:"The media type."`
	URI      string `json:"uri,omitempty" doc:"The resource's address."`
}

// Contents implements registry.Contents: the blocks are the answer.
func (a Answer) Contents() []registry.Block {
	out := make([]registry.Block, len(a.Blocks))
	for i, b := range a.Blocks {
		out[i] = registry.Block{Kind: b.Type, Text: b.Text, Data: b.Data, MIMEType: b.MIMEType, URI: b.URI}
	}
	return out
}

// The suite's minimal media: a 1×1 red PNG and a silent WAV.
var (
	png = mustDecode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	wav = mustDecode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
)

func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func text(s string) AnswerBlock { return AnswerBlock{Type: registry.BlockText, Text: s} }

func image() AnswerBlock {
	return AnswerBlock{Type: registry.BlockImage, Data: png, MIMEType: "image/png"}
}

func resource(uri, s string) AnswerBlock {
	return AnswerBlock{Type: registry.BlockResource, URI: uri, MIMEType: "text/plain", Text: s}
}

// fixture declares one read-only fixture: every guard field written, the
// answer fixed.
func fixture[I any](reg *registry.Registry, tool, path, description string, answer func(*I) (Answer, error)) {
	working(reg, tool, path, description, func(_ context.Context, _ *registry.Call, in *I) (Answer, error) { return answer(in) })
}

// working declares one read-only fixture whose answer works with its call
// (reports progress, say).
func working[I any](reg *registry.Registry, tool, path, description string, handle func(context.Context, *registry.Call, *I) (Answer, error)) {
	workingAs(reg, registry.Tool(tool, description), path, handle)
}

// workingAs is working for a tool declared beyond its name and words
// (arguments mirrored in headers, say).
func workingAs[I any](reg *registry.Registry, spec registry.ToolSpec, path string, handle func(context.Context, *registry.Call, *I) (Answer, error)) {
	registry.Add(reg, registry.Op[I, Answer]{
		ID:      "fixtures." + spec.Name,
		Summary: spec.Description,
		HTTP:    registry.Get("/fixtures/" + path),
		Tool:    spec,

		Scope:        ScopeUse,
		Owner:        registry.CallerOwned,
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},

		Handle: handle,
	})
}

// Declare adds the product's scope and fixtures to reg.
func Declare(reg *registry.Registry) {
	reg.DeclareScope(ScopeUse, registry.WriteScope, "Call the conformance fixtures.")
	reg.DeclareScope(ScopePrompts, registry.ReadScope, "Get the conformance prompts.")
	fixed := func(bs ...AnswerBlock) func(*NoInput) (Answer, error) {
		return func(*NoInput) (Answer, error) { return Answer{Blocks: bs}, nil }
	}
	fixture(reg, "test_simple_text", "simple-text", "Answers a simple text.",
		fixed(text("This is a simple text response for testing.")))
	fixture(reg, "test_image_content", "image", "Answers an image.", fixed(image()))
	fixture(reg, "test_audio_content", "audio", "Answers a sound.",
		fixed(AnswerBlock{Type: registry.BlockAudio, Data: wav, MIMEType: "audio/wav"}))
	fixture(reg, "test_embedded_resource", "embedded-resource", "Answers an embedded resource.",
		fixed(resource("test://embedded-resource", "This is an embedded resource")))
	fixture(reg, "test_multiple_content_types", "multiple-content-types", "Answers a text, an image and an embedded resource.",
		fixed(text("This is text content"), image(), resource("test://embedded-in-multiple", "This is an embedded resource")))
	fixture(reg, "test_error_handling", "error", "Fails, as a tool error, unless asked to succeed.", func(in *ErrorInput) (Answer, error) {
		if in.Succeed {
			return Answer{Blocks: []AnswerBlock{text("asked to succeed")}}, nil
		}
		return Answer{}, &registry.Error{Kind: registry.KindInvalid, Code: "intentional",
			Detail: "this tool intentionally returns an error for testing", Err: errIntentional}
	})
	fixture(reg, "greet", "greet", "Greets by name, at once (a tool that never becomes a task).", func(in *GreetInput) (Answer, error) {
		return Answer{Blocks: []AnswerBlock{text("Hello, " + in.Name + "!")}}, nil
	})
	// The stateless scenario's probes: a call's answer stream carries its
	// result and nothing else (no request of the server's, no log line).
	fixture(reg, "test_streaming_elicitation", "streaming", "Answers a plain result: its stream carries no request of the server's.",
		fixed(text("stream observed: result frames only, no top-level requests")))
	fixture(reg, "test_logging_tool", "logging", "Answers a plain result and logs nothing.",
		fixed(text("nothing was logged")))
	declareProgress(reg)
	declareInput(reg) // input.go
	declareJobs(reg)
	declarePrompts(reg)
	declareResources(reg)
	declareSchemaTool(reg)
	declareHeadersTool(reg)
}

// declarePrompts declares the suite's prompts: a text, one with
// arguments, one with an image and one embedding a resource.
func declarePrompts(reg *registry.Registry) {
	say := func(b AnswerBlock) registry.Message {
		return registry.Message{Role: registry.RoleUser, Block: registry.Block{Kind: b.Type, Text: b.Text, Data: b.Data, MIMEType: b.MIMEType, URI: b.URI}}
	}
	fixed := func(bs ...AnswerBlock) func(context.Context, map[string]string) ([]registry.Message, error) {
		return func(context.Context, map[string]string) ([]registry.Message, error) {
			out := make([]registry.Message, len(bs))
			for i, b := range bs {
				out[i] = say(b)
			}
			return out, nil
		}
	}
	reg.DeclarePrompt(registry.Prompt{Name: "test_simple_prompt", Description: "A simple prompt, without arguments.", Scope: ScopePrompts,
		Render: fixed(text("This is a simple prompt for testing."))})
	reg.DeclarePrompt(registry.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt of two arguments.", Scope: ScopePrompts,
		Arguments: []registry.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		},
		Render: func(_ context.Context, args map[string]string) ([]registry.Message, error) {
			return []registry.Message{say(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args["arg1"], args["arg2"])))}, nil
		}})
	reg.DeclarePrompt(registry.Prompt{Name: "test_prompt_with_image", Description: "A prompt showing an image.", Scope: ScopePrompts,
		Render: fixed(image(), text("Please analyze the image above."))})
	reg.DeclarePrompt(registry.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt embedding a resource.", Scope: ScopePrompts,
		Arguments: []registry.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
		Render: func(_ context.Context, args map[string]string) ([]registry.Message, error) {
			return []registry.Message{say(resource(args["resourceUri"], "Embedded resource content for testing.")),
				say(text("Please process the embedded resource above."))}, nil
		}})
	reg.DeclarePrompt(registry.Prompt{Name: "test_input_required_result_prompt", Description: "A prompt that asks its context first.", Scope: ScopePrompts,
		Asking: func(_ context.Context, _ map[string]string, in registry.PromptInput) ([]registry.Message, error) {
			if a, ok := in.Answer("user_context"); ok && a.Accepted() {
				if context, ok := a.Values["context"].(string); ok {
					return []registry.Message{say(text("Answer within this context: " + context))}, nil
				}
			}
			if !in.CanAsk(registry.InputForm) {
				return []registry.Message{say(text("Answer within no particular context."))}, nil
			}
			return nil, &registry.InputNeeded{Requests: map[string]registry.InputRequest{
				"user_context": form("What context should the prompt use?", "context")}}
		}})
}

// declareProgress declares test_tool_with_progress: three steps of work
// 50 ms apart, each reported to a caller that follows the call's progress.
func declareProgress(reg *registry.Registry) {
	working(reg, "test_tool_with_progress", "progress", "Works in three steps, reporting each as progress.",
		func(ctx context.Context, c *registry.Call, _ *NoInput) (Answer, error) {
			for i, done := range []float64{0, 50, 100} {
				if i > 0 {
					select {
					case <-ctx.Done():
						return Answer{}, ctx.Err()
					case <-time.After(50 * time.Millisecond):
					}
				}
				c.Progress(ctx, done, 100, "")
			}
			return Answer{Blocks: []AnswerBlock{text("worked in three steps")}}, nil
		})
}

var errIntentional = errors.New("intentional")
