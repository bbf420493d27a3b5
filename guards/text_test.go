package guards_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// schemaOK accepts any arguments, so only the guard's own rules refuse.
type schemaOK struct{}

func (schemaOK) CheckArguments(*registry.Operation, map[string]json.RawMessage) []registry.Violation {
	return nil
}

type titled struct {
	Title string         `json:"title"`
	Tags  []string       `json:"tags"`
	Meta  map[string]any `json:"meta"`
}

// TestNULIsRefusedByName: a NUL character in any text argument is refused
// with 422 naming the argument, nested ones by their path; a NUL in a URI
// variable names no record, so it is not found.
func TestNULIsRefusedByName(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	registry.Add(reg, registry.Op[titled, struct{}]{ID: "x.update", HTTP: registry.Patch("/x/{id}", 200)})
	op, _ := reg.Lookup("x.update")
	tests := []struct {
		name  string
		vars  map[string]string
		args  string
		kind  registry.Kind
		field string
	}{
		{"plain text passes", map[string]string{"id": "a"}, `{"title":"Col du \\\\u0000 Galibier"}`, 0, ""},
		{"title", map[string]string{"id": "a"}, `{"title":"a\u0000b"}`, registry.KindInvalid, "title"},
		{"list element", map[string]string{"id": "a"}, `{"tags":["ok","\u0000"]}`, registry.KindInvalid, "tags.1"},
		{"nested key", map[string]string{"id": "a"}, `{"meta":{"k\u0000":1}}`, registry.KindInvalid, "meta.k\\u0000"},
		{"uri variable", map[string]string{"id": "a\x00b"}, `{}`, registry.KindNotFound, ""},
	}
	for _, tt := range tests {
		var args map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(tt.args), &args), tt.name)
		c := &registry.Call{Op: op, Vars: tt.vars, Args: args}
		reached := false
		err := guards.Arguments{Schema: schemaOK{}}.Check(context.Background(), c, func(context.Context, *registry.Call) error {
			reached = true
			return nil
		})
		if tt.kind == 0 {
			require.NoError(t, err, tt.name)
			require.True(t, reached, tt.name)
			continue
		}
		require.False(t, reached, tt.name)
		e := registry.AsError(err)
		require.Equal(t, tt.kind, e.Kind, tt.name)
		if tt.field != "" {
			require.Equal(t, []registry.Violation{{Field: tt.field, Reason: "must not contain the NUL character (\\u0000)"}}, e.Violations, tt.name)
		}
	}
}
