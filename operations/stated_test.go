package operations_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
)

type contact struct {
	Name    string `json:"name,omitempty"`
	Address *struct {
		City string `json:"city,omitempty"`
	} `json:"address,omitempty"`
	Phone string `json:"phone,omitempty"`
	Email string `json:"email,omitempty"`
}

const contactSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"city": {"type": "string"}}}},
  "properties": {
    "name": {"type": "string", "maxLength": 10},
    "address": {"$ref": "#/$defs/address"},
    "phone": {"type": "string"},
    "email": {"type": "string"}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"name": {"const": "phone-only"}}, "required": ["name"]},
  "then": {"required": ["phone"]},
  "additionalProperties": false
}`

// TestStatedSchemaJudgesArguments: an operation stating its input schema
// has its arguments judged against that schema, every 2020-12 keyword
// applied, and each refusal names the argument it is about.
func TestStatedSchemaJudgesArguments(t *testing.T) {
	t.Parallel()
	s := operations.NewSchemas(operations.NewSchemaRegistry())
	op := &registry.Operation{ID: "x.reach", InputType: reflect.TypeFor[contact](), InputSchema: json.RawMessage(contactSchema)}
	long := strings.Repeat("x", 3*registry.MaxQuote)
	tests := []struct {
		name string
		give string
		want []string // the fields named, in order
	}{
		{"valid", `{"name":"a","email":"a@b"}`, nil},
		{"an argument not published", `{"email":"a@b","zzz":1}`, []string{"zzz"}},
		{"neither branch of the composition", `{"name":"a"}`, []string{"arguments"}},
		{"the conditional's branch", `{"name":"phone-only","email":"a@b"}`, []string{"phone"}},
		{"through a reference", `{"email":"a@b","address":{"city":5}}`, []string{"address.city"}},
		{"too long", `{"email":"a@b","name":"` + long + `"}`, []string{"name"}},
	}
	for _, tt := range tests {
		var args map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(tt.give), &args))
		var got []string
		for _, v := range s.CheckArguments(op, args) {
			got = append(got, v.Field)
			require.NotContains(t, v.Reason, long[:registry.MaxQuote+1], tt.name)
		}
		require.Equal(t, tt.want, got, tt.name)
	}
}
