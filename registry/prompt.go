package registry

import (
	"context"
	"fmt"
	"regexp"
)

// Prompt is a prompt template a product offers its MCP clients: a person
// picks it in the client, which fills its arguments and gets the messages
// (prompts/list, prompts/get). A prompt reads and writes nothing of the
// product's: it is words, so no guard chain runs, but it is offered only
// to a token that carries its scope, as a tool is.
type Prompt struct {
	Name        string // lower snake case, unique among the prompts
	Title       string // the display name; "" spells the name in words
	Description string
	Scope       Scope // Public, or a declared scope the token must carry
	Arguments   []PromptArgument
	// Render answers the messages for the arguments as sent (every
	// required one present, none beyond the declared: the face refuses
	// the rest, naming them). A *Error it returns is answered as itself.
	Render func(ctx context.Context, args map[string]string) ([]Message, error)
	// Asking, when set, renders in place of Render a prompt that may ask
	// its caller for input first, as a tool's handler does: it returns
	// *InputNeeded to ask, and in holds what the client can answer, its
	// answers and the state sealed for this prompt, caller and arguments.
	Asking func(ctx context.Context, args map[string]string, in PromptInput) ([]Message, error)
}

// PromptInput is what a prompt that asks sees of its caller's input: as
// Call.CanAsk, Call.Answer and Call.InputState see it for an operation.
type PromptInput struct {
	Askable map[InputKind]bool
	Answers map[string]InputAnswer
	State   string
}

// CanAsk reports whether the caller can be asked for input of kind.
func (in PromptInput) CanAsk(kind InputKind) bool { return in.Askable[kind] }

// Answer is the caller's answer to the input request key.
func (in PromptInput) Answer(key string) (InputAnswer, bool) {
	a, ok := in.Answers[key]
	return a, ok
}

// PromptArgument is one argument of a Prompt.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// Message is one message of a rendered prompt: who says it, and one block
// of content (text, an image, a sound or an embedded resource).
type Message struct {
	Role  Role
	Block Block
}

// Role says who speaks a Message.
type Role string

// The roles of a prompt's messages.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// DeclarePrompt adds p to the prompts the MCP face offers. Problems are
// reported by Check with the operations'.
func (r *Registry) DeclarePrompt(p Prompt) { r.prompts = append(r.prompts, p) }

// Prompts lists the declared prompts, in declaration order.
func (r *Registry) Prompts() []Prompt { return r.prompts }

var promptName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// promptProblems names what is wrong with the declared prompts.
func (r *Registry) promptProblems() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range r.prompts {
		add := func(format string, args ...any) {
			out = append(out, "prompt "+p.Name+": "+fmt.Sprintf(format, args...))
		}
		switch {
		case !promptName.MatchString(p.Name):
			add("a prompt's name is lower snake case, at most 64 characters")
		case seen[p.Name]:
			add("declared twice")
		}
		seen[p.Name] = true
		if p.Description == "" {
			add("no description")
		}
		switch {
		case p.Scope == "":
			add("scope is not declared (registry.Public, or a declared scope)")
		case p.Scope != Public && r.ScopeAccess(p.Scope) == accessUndeclared:
			add("scope %s is not in the vocabulary: declare it with DeclareScope", p.Scope)
		}
		switch {
		case p.Render == nil && p.Asking == nil:
			add("no Render (or Asking)")
		case p.Render != nil && p.Asking != nil:
			add("both Render and Asking: a prompt renders one way")
		}
		args := map[string]bool{}
		for _, a := range p.Arguments {
			if a.Name == "" || args[a.Name] {
				add("argument %q is unnamed or declared twice", a.Name)
			}
			args[a.Name] = true
			if a.Description == "" {
				add("argument %s has no description", a.Name)
			}
		}
	}
	return out
}
