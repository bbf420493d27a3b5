package registry_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
)

// keptAnswer is an output that carries its JSON, or none.
type keptAnswer struct {
	Name string `json:"name"`
	kept []byte
}

func (k keptAnswer) EncodedJSON() []byte { return k.kept }

// An output's own JSON is what both faces send; one without is marshalled.
func TestEncodeSendsTheOutputsOwnJSON(t *testing.T) {
	t.Parallel()
	kept := []byte(`{"name":"kept"}`)
	tests := []struct {
		name string
		out  any
		want string
	}{
		{"its own JSON", keptAnswer{Name: "read", kept: kept}, `{"name":"kept"}`},
		{"none kept", keptAnswer{Name: "read"}, `{"name":"read"}`},
		{"not Encoded", struct {
			N int `json:"n"`
		}{1}, `{"n":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := registry.Encode(tt.out)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(got))
		})
	}
	got, err := registry.Encode(keptAnswer{kept: kept})
	require.NoError(t, err)
	require.Same(t, &kept[0], &got[0], "the kept bytes are sent, not a copy")
}
