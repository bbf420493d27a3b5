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

type point struct {
	Lat float64  `json:"lat" doc:"Latitude."`
	Ele *float64 `json:"ele,omitempty" doc:"Elevation."`
}

type patch struct {
	Speed *float64 `json:"speed,omitempty" doc:"Not nullable."`
	Title *string  `json:"title,omitempty" nullable:"true" doc:"Nullable: null clears it."`
	Kinds []string `json:"kinds,omitempty" nullable:"false" doc:"A list that cannot be null."`
	At    *point   `json:"at,omitempty" doc:"A place."`
}

// TestCheckArgumentsNamesWhatItRefuses: a null for a field the schema does
// not publish as nullable is refused by name (the schema check alone would
// pass it over, and the merge would keep the stored value), a null for a
// nullable one passes, and an unpublished name is refused exactly as sent,
// even when it holds a dot or is empty.
func TestCheckArgumentsNamesWhatItRefuses(t *testing.T) {
	t.Parallel()
	s := operations.NewSchemas(operations.NewSchemaRegistry())
	op := &registry.Operation{ID: "x.update", InputType: reflect.TypeFor[patch]()}
	tests := []struct {
		name string
		give string
		want []string // the fields named, in order
	}{
		{"null for a field that cannot be null", `{"speed":null}`, []string{"speed"}},
		{"null for a nullable field", `{"title":null}`, nil},
		{"null for a list", `{"kinds":null}`, []string{"kinds"}},
		{"null nested", `{"at":{"lat":1,"ele":null}}`, []string{"at.ele"}},
		{"null for an object", `{"at":null}`, []string{"at"}},
		{"a value", `{"speed":20,"kinds":["a"],"at":{"lat":1,"ele":2}}`, nil},
		{"names with dots and an empty one", `{"":1,"a.b":2,"c":3}`, []string{"", "a.b", "c"}},
	}
	for _, tt := range tests {
		var args map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(tt.give), &args))
		var got []string
		for _, v := range s.CheckArguments(op, args) {
			got = append(got, v.Field)
		}
		require.Equal(t, tt.want, got, tt.name)
	}
}

type site struct {
	URL  string `json:"url" format:"uri" doc:"An address."`
	Name string `json:"name" pattern:"^[a-z]+$" doc:"A name."`
}

// TestRefusalsClipTheCallersValue: a caller's value never comes back beyond
// registry.MaxQuote characters, whichever message quotes it (a format check
// quotes it whole, and its parse error again).
func TestRefusalsClipTheCallersValue(t *testing.T) {
	t.Parallel()
	s := operations.NewSchemas(operations.NewSchemaRegistry())
	op := &registry.Operation{ID: "x.create", InputType: reflect.TypeFor[site]()}
	long := "https://exa mple.com/" + strings.Repeat("a", 1500)
	tests := []struct {
		name string
		give map[string]any
	}{
		{"an address that does not parse", map[string]any{"url": long, "name": "ok"}},
		{"a name off its pattern", map[string]any{"url": "https://example.com", "name": strings.Repeat("B", 1500)}},
	}
	for _, tt := range tests {
		args := map[string]json.RawMessage{}
		for k, v := range tt.give {
			raw, err := json.Marshal(v)
			require.NoError(t, err)
			args[k] = raw
		}
		vs := s.CheckArguments(op, args)
		require.NotEmpty(t, vs, tt.name)
		for _, v := range vs {
			require.NotContains(t, v.Reason, strings.Repeat("a", registry.MaxQuote+1), tt.name)
			require.NotContains(t, v.Reason, strings.Repeat("B", registry.MaxQuote+1), tt.name)
			require.LessOrEqual(t, len(v.Reason), registry.MaxQuote*4+200, "%s: %s", tt.name, v.Reason)
		}
	}
}
