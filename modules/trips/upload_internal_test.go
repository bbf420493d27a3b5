package trips

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/routefixture"
)

// TestParsingStopsWithTheRequest: a file still being parsed when its
// request is gone stops at the next read, with the context's error.
func TestParsingStopsWithTheRequest(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	endless := routefixture.Oversized(MaxUploadBytes) // track points, never closed
	reads := 0
	src := readFunc(func(p []byte) (int, error) {
		if reads++; reads == 3 {
			cancel() // the client leaves during the upload
		}
		return endless.Read(p)
	})
	_, err := gpx.Parser{MaxBytes: MaxUploadBytes}.Parse(contextReader{ctx, src})
	require.ErrorIs(t, err, context.Canceled)
	require.LessOrEqual(t, reads, 3, "no read after the request is gone")
}

type readFunc func([]byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }
