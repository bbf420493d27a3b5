package operations

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/jsonschema-go/jsonschema"

	"cairn.dev/cairn/registry"
)

// stated is an operation's stated input schema (registry.Op.InputSchema),
// compiled once.
type stated struct {
	resolved *jsonschema.Resolved
	props    map[string]bool // the top-level properties
	closed   bool            // additionalProperties is false
	doc      map[string]any  // the schema as stated, for the OpenAPI document
}

// statedOf compiles op's stated input schema, once; nil when it states none.
// A schema that does not compile is a broken declaration: the faces panic
// at start-up, as for a Go type without a schema.
func (s *Schemas) statedOf(op *registry.Operation) *stated {
	if len(op.InputSchema) == 0 {
		return nil
	}
	if v, ok := s.stated.Load(op); ok {
		return v.(*stated)
	}
	var sc jsonschema.Schema
	if err := json.Unmarshal(op.InputSchema, &sc); err != nil {
		panic(fmt.Sprintf("%s: stated input schema: %v", op.ID, err))
	}
	rs, err := sc.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("%s: stated input schema: %v", op.ID, err))
	}
	st := &stated{resolved: rs, props: map[string]bool{}, doc: op.StatedSchema()}
	for k := range sc.Properties {
		st.props[k] = true
	}
	if ap := sc.AdditionalProperties; ap != nil && ap.Not != nil && len(ap.Not.Properties) == 0 {
		st.closed = true // false decodes as {"not": {}}
	}
	v, _ := s.stated.LoadOrStore(op, st)
	return v.(*stated)
}

// check judges the arguments against the stated schema: each argument it
// does not publish (when it is closed) named on its own, as for a Go
// type's schema, then the first rule the rest breaks.
func (st *stated) check(args map[string]json.RawMessage) []registry.Violation {
	value := make(map[string]any, len(args))
	var out []registry.Violation
	var unknown []string
	for k, raw := range args {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return []registry.Violation{{Field: registry.Clip(k), Reason: "is not valid JSON"}}
		}
		if st.closed && !st.props[k] {
			unknown = append(unknown, k)
			continue
		}
		value[k] = v
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		out = append(out, registry.Violation{Field: registry.Clip(k), Reason: unexpectedReason})
	}
	if err := st.resolved.Validate(value); err != nil {
		out = append(out, statedViolation(err.Error(), value))
	}
	return out
}

// statedViolation names what a validator's message is about: the argument
// its schema path leads to ("validating /properties/address: validating
// /$defs/address/properties/city: ..." is address.city), and a missing
// one as required; a rule of the whole input (one of two arguments) is
// the arguments'. Every long text the caller sent is clipped in it.
func statedViolation(msg string, value any) registry.Violation {
	msg, _, _ = strings.Cut(msg, "\n") // a composition lists each branch's failure after its own
	msg = strings.TrimPrefix(msg, "validating root: ")
	var path []string
	for strings.HasPrefix(msg, "validating ") {
		where, rest, ok := strings.Cut(strings.TrimPrefix(msg, "validating "), ": ")
		if !ok {
			break
		}
		if i := strings.LastIndex(where, "/properties/"); i >= 0 {
			path = append(path, where[i+len("/properties/"):])
		}
		msg = rest
	}
	if missing, ok := strings.CutPrefix(msg, "required: missing properties: "); ok {
		var names []string
		if json.Unmarshal([]byte(missing), &names) == nil && len(names) == 1 {
			return registry.Violation{Field: registry.Clip(strings.Join(append(path, names[0]), ".")), Reason: "is required"}
		}
	}
	for _, v := range longTexts(value, nil) {
		msg = clipQuoted(msg, v)
	}
	field := "arguments"
	if len(path) > 0 {
		field = registry.Clip(strings.Join(path, "."))
	}
	return registry.Violation{Field: field, Reason: msg}
}

// longTexts are the strings of v longer than registry.MaxQuote runes.
func longTexts(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		if len([]rune(x)) > registry.MaxQuote {
			out = append(out, x)
		}
	case map[string]any:
		for _, e := range x {
			out = longTexts(e, out)
		}
	case []any:
		for _, e := range x {
			out = longTexts(e, out)
		}
	}
	return out
}

// documented is the stated schema as the OpenAPI document shows it: as
// stated, every keyword kept.
func (st *stated) documented() *huma.Schema { return &huma.Schema{Extensions: st.doc} }
