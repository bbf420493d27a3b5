package gpx_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/gpx"
)

// manyPoints is a file of tracks of n points each, a point every 10 m.
func manyPoints(tracks, n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">`)
	for t := range tracks {
		fmt.Fprintf(&b, "<trk><name>Track %d</name><trkseg>\n", t)
		for i := range n {
			fmt.Fprintf(&b, `<trkpt lat="%.6f" lon="%.6f"><ele>%.1f</ele></trkpt>`+"\n", 45+float64(t)*0.1, 6+float64(i)*1.3e-4, float64(i%900))
		}
		b.WriteString("</trkseg></trk>\n")
	}
	b.WriteString("</gpx>\n")
	return b.Bytes()
}

// TestParseJoinsItsChunks: points kept in chunks come out whole, in file
// order, with each track's start, as the standard decoder reads them.
func TestParseJoinsItsChunks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		tracks, n int
	}{
		{"within the first chunk", 1, 1_000},
		{"exactly one chunk", 1, 1 << 16},
		{"one point over a chunk", 1, 1<<16 + 1},
		{"tracks across chunks", 3, 70_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := manyPoints(tt.tracks, tt.n)
			got, err := gpx.Parse(bytes.NewReader(data))
			require.NoError(t, err)
			want, err := gpx.DecoderParse(bytes.NewReader(data), 0)
			require.NoError(t, err)
			require.Len(t, got.Points, tt.tracks*tt.n)
			require.Equal(t, want.Points, got.Points)
			require.Equal(t, want.TrackStarts, got.TrackStarts)
			require.Equal(t, want.Title, got.Title)
		})
	}
}

// TestParseAllocatesTwiceItsPoints: reading 300,000 points allocates at
// most about twice what the points take (the chunks, then the joined
// slice), where appending to one slice allocated five times as much.
func TestParseAllocatesTwiceItsPoints(t *testing.T) { // not parallel: it reads the process's allocation counter
	const n = 300_000
	data := manyPoints(1, n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	route, err := gpx.Parse(bytes.NewReader(data))
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Len(t, route.Points, n)
	pointBytes := uint64(n) * 24
	allocated := after.TotalAlloc - before.TotalAlloc
	require.LessOrEqual(t, allocated, 2*pointBytes+1<<20, "allocated %d bytes for %d bytes of points", allocated, pointBytes)
}
