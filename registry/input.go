package registry

import (
	"errors"
	"maps"
	"slices"
	"strings"
)

// InputKind is a kind of input a handler may ask its caller for before it
// answers: what an MCP client gives (a person's answer to a form, its
// model's completion, its roots).
type InputKind string

// The kinds of input.
const (
	// InputForm asks a person to fill a form (MCP elicitation/create).
	InputForm InputKind = "elicitation"
	// InputSample asks the caller's model for a completion (MCP
	// sampling/createMessage).
	InputSample InputKind = "sampling"
	// InputRoots asks for the caller's roots (MCP roots/list).
	InputRoots InputKind = "roots"
)

// InputRequest is one thing a handler asks for.
type InputRequest struct {
	Kind InputKind
	// Message is what is asked, in words: the form's question, or the
	// prompt the model completes. Roots take none.
	Message string
	// Schema is the form's answer, a JSON Schema of an object (InputForm).
	Schema map[string]any
	// MaxTokens bounds the model's completion (InputSample).
	MaxTokens int
}

// InputAnswer is the caller's answer to one InputRequest, as it sent it:
// untrusted, like any argument.
type InputAnswer struct {
	Kind InputKind
	// Action is accept, decline or cancel (InputForm).
	Action string
	// Values are the form's fields when accepted (InputForm).
	Values map[string]any
	// Text is the model's completion (InputSample).
	Text string
	// Roots are the roots' URIs (InputRoots).
	Roots []string
}

// Accepted reports whether a form was filled and sent.
func (a InputAnswer) Accepted() bool { return a.Kind == InputForm && a.Action == "accept" }

// InputNeeded is what a handler returns to ask its caller for input before
// it answers: the requests by key and the state it wants back with the
// answers (Call.InputState), up to MaxInputState bytes. The call writes
// nothing meanwhile: every transaction around the handler rolls back. The
// chain seals the state (bound to the caller, the operation and its
// arguments, for InputStateTTL); the face asks in its own way, or refuses
// where it cannot ask (HTTP: 409 input_required). A handler asks only for
// what its face can carry (Call.CanAsk); a creation's idempotency claim
// rolls back with the rest, so a creation may ask too.
type InputNeeded struct {
	Requests map[string]InputRequest
	State    string
}

// MaxInputState bounds the state a handler keeps across rounds: it travels
// with each round, in the request and in the answer.
const MaxInputState = 4 << 10

func (n *InputNeeded) Error() string {
	keys := slices.Sorted(maps.Keys(n.Requests))
	return "input required: " + strings.Join(keys, ", ")
}

// Unwrap is the refusal a face that cannot ask answers.
func (n *InputNeeded) Unwrap() error {
	return &Error{Kind: KindConflict, Code: "input_required",
		Detail: "this call needs answers of its caller (" + strings.Join(slices.Sorted(maps.Keys(n.Requests)), ", ") +
			"), which only an MCP client of revision 2026-07-28 or later can be asked for"}
}

// InputRequired is the answer a face gives for an InputNeeded: the
// requests, and the sealed state the caller sends back with its answers.
// It is the error the chain returns, and unwraps to the refusal of a face
// that cannot ask.
type InputRequired struct {
	Requests map[string]InputRequest
	State    string
	needed   *InputNeeded
}

// NewInputRequired is n answered with the sealed state.
func NewInputRequired(n *InputNeeded, sealed string) *InputRequired {
	return &InputRequired{Requests: n.Requests, State: sealed, needed: n}
}

func (r *InputRequired) Error() string { return r.needed.Error() }

// Unwrap is the refusal a face that cannot ask answers.
func (r *InputRequired) Unwrap() error { return r.needed.Unwrap() }

// ErrInputState refuses a state sent back that is not one the server
// sealed for this caller, operation and arguments, or that expired: MCP
// answers it as invalid params.
var ErrInputState = &Error{Kind: KindInvalid, Code: "request_state_refused",
	Detail: "requestState was not issued for this call (altered, for other arguments, for another caller, or expired); call again without it"}

// CanAsk reports whether the call's face can ask its caller for input of
// kind: an MCP client at 2026-07-28 that declared it in this request.
func (c *Call) CanAsk(kind InputKind) bool { return c.Askable[kind] }

// Answer is the caller's answer to the input request key, when it sent
// one with a sealed state the chain verified.
func (c *Call) Answer(key string) (InputAnswer, bool) {
	a, ok := c.InputAnswers[key]
	return a, ok
}

// AsInputNeeded reports whether err asks for input.
func AsInputNeeded(err error) (*InputNeeded, bool) {
	var n *InputNeeded
	ok := errors.As(err, &n)
	return n, ok
}
