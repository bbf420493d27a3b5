package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
)

// TestUnfixed: Exercise reports an operation without a fixture, and a
// fixture naming no operation (a renamed ID leaves one behind).
func TestUnfixed(t *testing.T) {
	ops := []*registry.Operation{{ID: "notes.get"}, {ID: "notes.create"}}
	tests := []struct {
		name string
		fx   Fixtures
		want []string
	}{
		{"every operation has one", Fixtures{"notes.get": {}, "notes.create": {}}, nil},
		{"one is missing", Fixtures{"notes.get": {}}, []string{
			"notes.create has no fixture: add one to the module's conformance test (declarations alone prove nothing)"}},
		{"one is stale", Fixtures{"notes.get": {}, "notes.create": {}, "notes.read": {}}, []string{
			"a fixture names notes.read, which the registry does not declare"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, unfixed(ops, tt.fx))
		})
	}
}
