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

// TestTheTextRuleHoldsForEveryArgument: a control character other than
// white space, a byte order mark or a bidirectional control, escaped or
// sent as it is, is refused naming the argument and the character; white
// space and letters past ASCII pass.
func TestTheTextRuleHoldsForEveryArgument(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	registry.Add(reg, registry.Op[titled, struct{}]{ID: "x.update", HTTP: registry.Patch("/x/{id}", 200)})
	op, _ := reg.Lookup("x.update")
	tests := []struct {
		name, args, field, found string
	}{
		{"letters, a tab and a line break pass", `{"title":"Col de l'Iseran\tétape\n2"}`, "", ""},
		{"a bell", `{"title":"a\u0007b"}`, "title", "U+0007"},
		{"an escape", `{"title":"\u001b[31mred"}`, "title", "U+001B"},
		{"a right-to-left override, escaped", `{"title":"abc\u202Egpj.exe"}`, "title", "U+202E"},
		{"a right-to-left override, as sent", "{\"tags\":[\"ok\",\"abc\u202egpj\"]}", "tags.1", "U+202E"},
		{"a byte order mark", "{\"title\":\"\ufeffx\"}", "title", "U+FEFF"},
		{"a first strong isolate in a key", `{"meta":{"k\u2068":1}}`, `meta.k\u2068`, "U+2068"},
		{"delete", "{\"title\":\"a\x7fb\"}", "title", "U+007F"},
	}
	for _, tt := range tests {
		var args map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(tt.args), &args), tt.name)
		c := &registry.Call{Op: op, Vars: map[string]string{"id": "a"}, Args: args}
		err := guards.Arguments{Schema: schemaOK{}}.Check(context.Background(), c, func(context.Context, *registry.Call) error { return nil })
		if tt.field == "" {
			require.NoError(t, err, tt.name)
			continue
		}
		e := registry.AsError(err)
		require.Equal(t, registry.KindInvalid, e.Kind, tt.name)
		require.Len(t, e.Violations, 1, tt.name)
		require.Equal(t, tt.field, e.Violations[0].Field, tt.name)
		require.Contains(t, e.Violations[0].Reason, tt.found, tt.name)
	}
}
