package registry

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// StatedSchema is what an Op's InputSchema holds, decoded: nil when the
// declaration states none and the input's Go type is the schema.
func (o *Operation) StatedSchema() map[string]any {
	if len(o.InputSchema) == 0 {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(o.InputSchema, &m) != nil {
		return nil
	}
	return m
}

// inputSchemaProblems judges a stated input schema: a JSON object of type
// object whose properties are exactly the input's JSON fields, so that
// nothing the schema admits is dropped when the arguments are decoded into
// the input, and nothing the input holds goes unpublished. A face adds no
// argument to a schema it publishes verbatim, so the operation takes none
// beyond its input: no URI variable, version, key, confirmation or action.
func inputSchemaProblems(o *Operation) []string {
	if len(o.InputSchema) == 0 {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(o.InputSchema, &m); err != nil || m == nil {
		return []string{"the stated input schema is not a JSON object"}
	}
	var out []string
	if m["type"] != "object" {
		out = append(out, `the stated input schema is not of type "object"`)
	}
	props, _ := m["properties"].(map[string]any)
	stated := make([]string, 0, len(props))
	for k := range props {
		stated = append(stated, k)
	}
	fields := jsonFields(o.InputType)
	slices.Sort(stated)
	slices.Sort(fields)
	if !slices.Equal(stated, fields) {
		out = append(out, "the stated input schema's properties ["+strings.Join(stated, " ")+
			"] are not the input's fields ["+strings.Join(fields, " ")+"]")
	}
	if len(o.URIVariables()) > 0 || o.Precondition == RequireVersion || o.Idempotency.Creation() ||
		o.Confirm.Asks() || o.Tool.Action != "" {
		out = append(out, "an operation stating its input schema takes no URI variable, version, idempotency key, confirmation or action")
	}
	return out
}

// jsonFields are the JSON names of a struct's exported fields, embedded
// structs' included.
func jsonFields(t reflect.Type) []string {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-":
		case f.Anonymous && tag == "":
			out = append(out, jsonFields(f.Type)...)
		case !f.IsExported():
		case tag != "":
			out = append(out, tag)
		default:
			out = append(out, f.Name)
		}
	}
	return out
}
