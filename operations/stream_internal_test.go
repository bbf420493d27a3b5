package operations

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
)

// TestFrameWritesOneEvent: an event is its id, type and data lines; an id
// holding a line break cannot end the event early or add a field; an
// event without a type is a comment, which EventSource does not dispatch.
func TestFrameWritesOneEvent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		give registry.StreamEvent
		want string
	}{
		{"with an id", registry.StreamEvent{ID: "7-1", Event: "made"}, "id: 7-1\nevent: made\ndata: {}\n\n"},
		{"without", registry.StreamEvent{Event: "status"}, "event: status\ndata: {}\n\n"},
		{"a hostile id", registry.StreamEvent{ID: "1\n\nevent: x\r\x00", Event: "made"}, "id: 1event: x\nevent: made\ndata: {}\n\n"},
		{"a comment", registry.StreamEvent{ID: "ignored"}, ": {}\n\n"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, frame(tt.give, []byte("{}")), tt.name)
	}
}
