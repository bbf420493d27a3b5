package guards

import (
	"context"
	"encoding/json"
	"strings"

	"cairn.dev/cairn/registry"
)

// ArgumentChecker judges the arguments as sent against the schema both faces
// publish for the operation's input: unpublished names, missing required
// ones and wrong types are each a violation naming the argument.
type ArgumentChecker interface {
	CheckArguments(op *registry.Operation, args map[string]json.RawMessage) []registry.Violation
}

// Arguments refuses arguments the schema does not publish, by name, and
// decodes the rest into the operation's input (422).
type Arguments struct{ Schema ArgumentChecker }

var _ Guard = Arguments{}

// Name implements Guard.
func (Arguments) Name() string { return NameArguments }

// Check implements Guard.
func (g Arguments) Check(ctx context.Context, c *registry.Call, next Next) error {
	if c.Unreadable != "" {
		e := &registry.Error{Kind: registry.KindMalformed, Detail: c.Unreadable}
		if c.UnreadableIn != "" {
			e.Violations = []registry.Violation{{Field: c.UnreadableIn, Reason: c.Unreadable}}
		}
		return e
	}
	var vs []registry.Violation
	for _, v := range c.Op.URIVariables() {
		switch {
		case c.Vars[v] == "":
			vs = append(vs, registry.Violation{Field: v, Reason: "is required"})
		case strings.ContainsRune(c.Vars[v], 0):
			// No record is named so: unknown, as the owner guard answers.
			return registry.NotFoundFor(c.Op)
		}
	}
	vs = append(vs, c.Refused...)
	vs = append(vs, textViolations(c.Args)...)
	// The schema is judged whatever was found above, so that one refusal
	// names everything wrong: a missing identifier and the unpublished
	// names sent beside it. A field named twice keeps its first reason.
	vs = onceEach(append(vs, g.Schema.CheckArguments(c.Op, c.Args)...))
	if len(vs) > 0 {
		return registry.Invalid("the arguments do not match the published schema", vs...)
	}
	in := c.Op.NewInput()
	if len(c.Args) > 0 {
		raw, err := json.Marshal(c.Args)
		if err != nil {
			return registry.Internal(err)
		}
		if err := json.Unmarshal(raw, in); err != nil {
			return registry.Invalid("the arguments could not be read",
				registry.Violation{Field: fieldOf(err), Reason: "has the wrong type"})
		}
	}
	if c.Op.Paging.Lists() {
		if pager, ok := in.(registry.Pager); ok {
			if vs := c.Op.Paging.Apply(pager.PageRequest()); len(vs) > 0 {
				return registry.Invalid("the page asked for cannot be served", vs...)
			}
		}
	}
	c.Input = in
	return next(ctx, c)
}

func fieldOf(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
		return te.Field
	}
	return "body"
}

// onceEach keeps the first violation of each field, in order: the same
// field found by two rules is named once.
func onceEach(vs []registry.Violation) []registry.Violation {
	seen := make(map[string]bool, len(vs))
	out := vs[:0:0]
	for _, v := range vs {
		if !seen[v.Field] {
			seen[v.Field] = true
			out = append(out, v)
		}
	}
	return out
}
