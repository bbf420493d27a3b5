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

// TestAnUploadIsReadOnceForItsDigest: the guards that fingerprint a call
// (the rate limit's replay check, the idempotency key) each ask for the
// digest; a file the face received (registry.NewFile) is read once for
// all of them, and fingerprints as a file written out in full does.
func TestAnUploadIsReadOnceForItsDigest(t *testing.T) {
	t.Parallel()
	body := []byte("<gpx>one</gpx>")
	opens := 0
	received := registry.NewFile("a.gpx", "application/gpx+xml", int64(len(body)), func() (io.ReadCloser, error) {
		opens++
		return io.NopCloser(bytes.NewReader(body)), nil
	})
	literal := registry.File{Name: "a.gpx", ContentType: "application/gpx+xml", Size: int64(len(body)),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }}
	op := &registry.Operation{ID: "trips.upload"}
	want, err := guards.Digest(&registry.Call{Op: op, Files: map[string]registry.File{"gpxFile": literal}})
	require.NoError(t, err)
	c := &registry.Call{Op: op, Files: map[string]registry.File{"gpxFile": received}}
	for range 3 {
		got, err := guards.Digest(c)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	require.Equal(t, 1, opens, "read once")
}
