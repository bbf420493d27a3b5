package guards_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// TestDigestReadsUploadedFiles: one key over two uploads is one request
// only when the files are the same, byte for byte.
func TestDigestReadsUploadedFiles(t *testing.T) {
	t.Parallel()
	file := func(name, body string) registry.File {
		return registry.File{Name: name, ContentType: "application/gpx+xml", Size: int64(len(body)),
			Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader([]byte(body))), nil }}
	}
	call := func(files map[string]registry.File) *registry.Call {
		return &registry.Call{Op: &registry.Operation{ID: "trips.upload"}, Files: files}
	}
	digest := func(c *registry.Call) string {
		d, err := guards.Digest(c)
		require.NoError(t, err)
		return d
	}
	base := digest(call(map[string]registry.File{"gpxFile": file("a.gpx", "<gpx>one</gpx>")}))
	tests := []struct {
		name  string
		files map[string]registry.File
		same  bool
	}{
		{"the same file again", map[string]registry.File{"gpxFile": file("a.gpx", "<gpx>one</gpx>")}, true},
		{"another content", map[string]registry.File{"gpxFile": file("a.gpx", "<gpx>two</gpx>")}, false},
		{"another name", map[string]registry.File{"gpxFile": file("b.gpx", "<gpx>one</gpx>")}, false},
		{"no file", nil, false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.same, digest(call(tt.files)) == base, tt.name)
	}
}
