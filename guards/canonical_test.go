package guards_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

func TestCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		give string
		want string
	}{
		{"keys sorted", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"recursively", `{"z":{"y":[{"d":1,"c":2}],"x":null}}`, `{"z":{"x":null,"y":[{"c":2,"d":1}]}}`},
		{"spaces dropped", "{ \"a\" : [ 1 , 2 ] }", `{"a":[1,2]}`},
		{"one number, several spellings", `{"a":1.0,"b":1e0,"c":10}`, `{"a":1,"b":1,"c":10}`},
		{"array order kept", `[3,1,2]`, `[3,1,2]`},
		{"strings escaped", `{"a":"\u00e9\""}`, `{"a":"é\""}`},
		{"empty", ``, `null`},
	}
	for _, tt := range tests {
		got, err := guards.Canonical(json.RawMessage(tt.give))
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.want, string(got), tt.name)
	}
	_, err := guards.Canonical(json.RawMessage(`{"a":`))
	require.Error(t, err)
}

func TestDigestIgnoresKeyOrderButNotValues(t *testing.T) {
	t.Parallel()
	op := &registry.Operation{ID: "trips.update_settings"}
	v := int64(3)
	call := func(args string, version *int64) *registry.Call {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(args), &m))
		return &registry.Call{Op: op, Vars: map[string]string{"id": "t1"}, Args: m, ExpectedVersion: version}
	}
	a, err := guards.Digest(call(`{"x":1,"y":{"b":2,"a":1}}`, &v))
	require.NoError(t, err)
	b, err := guards.Digest(call(`{"y":{"a":1,"b":2},"x":1}`, &v))
	require.NoError(t, err)
	require.Equal(t, a, b)
	c, err := guards.Digest(call(`{"x":2,"y":{"a":1,"b":2}}`, &v))
	require.NoError(t, err)
	require.NotEqual(t, a, c, "another value is another digest")
	d, err := guards.Digest(call(`{"x":1,"y":{"a":1,"b":2}}`, nil))
	require.NoError(t, err)
	require.NotEqual(t, a, d, "the expected version is part of what is asked")
}
