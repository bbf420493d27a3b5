package routefixture_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/routefixture"
)

func TestLongIsLongAndRealistic(t *testing.T) {
	t.Parallel()
	route := routefixture.Long()

	require.Len(t, route, routefixture.LongPoints)
	assert.GreaterOrEqual(t, len(route), 100_000)
	km := geo.Length(route) / 1000
	assert.GreaterOrEqual(t, km, 2000.0)

	gain, loss := gpx.Ascent(route)
	assert.InDelta(t, 14, gain/km, 4, "hilly, not alpine: about 14 m of climbing per km")
	assert.InDelta(t, gain, loss, 0.5*gain, "it goes down about as much as up")
	for i, p := range route {
		require.GreaterOrEqualf(t, p.Ele, 0.0, "point %d below sea level", i)
		require.Lessf(t, p.Ele, 2500.0, "point %d above the hills", i)
		if i > 0 {
			step := geo.Distance(route[i-1], p)
			require.Lessf(t, step, 3*routefixture.LongSpacing, "point %d jumps %.1f m", i, step)
		}
	}
}

func TestRouteIsDeterministic(t *testing.T) {
	t.Parallel()
	assert.Equal(t, routefixture.Route(5, 2000, 20), routefixture.Route(5, 2000, 20))
	assert.NotEqual(t, routefixture.Route(5, 2000, 20), routefixture.Route(6, 2000, 20))
}

func TestZigzag(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give float64
	}{
		{name: "one leg", give: 400},
		{name: "not a whole number of steps", give: 12_345},
		{name: "scenario length", give: 300_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			route := routefixture.Zigzag(tt.give)
			assert.InDelta(t, tt.give, geo.Length(route), 0.01)
			assert.Zero(t, route[0].Lon)
			assert.InDelta(t, routefixture.ZigzagSwing, geo.Distance(geo.Point{}, route[0]), 0.01, "starts at the northern swing")
		})
	}
}

func TestHillsClimbTheirHeight(t *testing.T) {
	t.Parallel()
	route := routefixture.Hills(routefixture.Zigzag(90_000), 250, 30_000)
	gain, loss := gpx.Ascent(route)
	// Sampling every ~50 m may shave each summit by under a metre.
	assert.InDelta(t, 3*250, gain, 3)
	assert.InDelta(t, 3*250, loss, 3)
}

func TestHostileFilesAreWhatTheySay(t *testing.T) {
	t.Parallel()
	assert.Contains(t, string(routefixture.DoctypeBomb()), "<!DOCTYPE")
	assert.Contains(t, string(routefixture.DoctypeBomb()), "&lol9;")
	assert.NotContains(t, string(routefixture.NoTrackPoints()), "<trkpt")
	assert.True(t, strings.HasSuffix(string(routefixture.Truncated()), "<el"))
	assert.NotContains(t, string(routefixture.NotGPX()), "<")
}

func TestOversizedIsExactAndLazy(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give int64
	}{
		{name: "shorter than its header", give: 10},
		{name: "a few points", give: 1000},
		{name: "31 MB", give: 31_000_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, err := io.Copy(io.Discard, routefixture.Oversized(tt.give))
			require.NoError(t, err)
			assert.Equal(t, tt.give, n)
		})
	}
}

// Not parallel: testing.AllocsPerRun refuses to run beside other tests.
func TestOversizedDoesNotAllocateItsSize(t *testing.T) {
	buf := make([]byte, 32<<10)
	allocs := testing.AllocsPerRun(5, func() {
		r := routefixture.Oversized(8 << 20)
		for {
			if _, err := r.Read(buf); err == io.EOF {
				return
			}
		}
	})
	assert.LessOrEqual(t, allocs, 1.0, "only the reader itself")
}

func TestOversizedLooksLikeGPX(t *testing.T) {
	t.Parallel()
	head := make([]byte, 400)
	_, err := io.ReadFull(routefixture.Oversized(1<<20), head)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(head, []byte("<?xml")))
	assert.Contains(t, string(head), "<trkpt lat=")
}

func BenchmarkLong(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		routefixture.Long()
	}
}

func TestShapes(t *testing.T) {
	t.Parallel()
	for _, shape := range routefixture.Shapes() {
		t.Run(shape.Name, func(t *testing.T) {
			t.Parallel()
			route := shape.Points(20_000)
			require.Len(t, route, 20_000)
			assert.Equal(t, route, shape.Points(20_000), "deterministic")
			for i := 1; i < len(route); i++ {
				step := geo.Distance(route[i-1], route[i])
				require.Lessf(t, step, 3*routefixture.ShapeSpacing, "point %d jumps %.1f m", i, step)
			}
			km := geo.Length(route) / 1000
			assert.InDelta(t, 20_000*routefixture.ShapeSpacing/1000, km, 0.6*km, "about ShapeSpacing apart, jitter included")
		})
	}
}

// TestShapesStayOnEarth holds every shape, at the largest size the import
// benchmarks run, to what a GPX parser accepts: a coordinate on the globe and
// an elevation in the physical range, so a recording of it can be written and
// uploaded.
func TestShapesStayOnEarth(t *testing.T) {
	t.Parallel()
	for _, shape := range routefixture.Shapes() {
		t.Run(shape.Name, func(t *testing.T) {
			for i, p := range shape.Points(1_000_000) {
				require.Truef(t, p.Lat >= -90 && p.Lat <= 90 && p.Lon >= -180 && p.Lon <= 180, "point %d at %v", i, p)
				require.Truef(t, p.Ele >= geo.MinElevation && p.Ele <= geo.MaxElevation, "point %d at %.1f m", i, p.Ele)
			}
		})
	}
}

func TestShapesThatComeBack(t *testing.T) {
	t.Parallel()
	loop := routefixture.Loop(10_000)
	assert.Equal(t, loop[0], loop[len(loop)-1], "a loop ends where it started")
	back := routefixture.OutAndBack(10_000)
	assert.Less(t, geo.Distance(back[0], back[len(back)-1]), 10.0, "an out-and-back ends near its start")
}

func TestLine(t *testing.T) {
	t.Parallel()
	line := routefixture.Line(50_000, 500_000)
	assert.InDelta(t, 500_000, geo.Distance(line[0], line[len(line)-1]), 100, "the ends are the line's length apart")
	assert.Greater(t, geo.Length(line), 500_000.0, "the jitter adds length")
}
