package gpx_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/routefixture"
)

// profile makes points that differ only in elevation.
func profile(eles ...float64) []geo.Point {
	points := make([]geo.Point, len(eles))
	for i, e := range eles {
		points[i] = geo.Point{Lat: 45, Lon: 6 + float64(i)*1e-4, Ele: e}
	}
	return points
}

func TestAscent(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		give     []geo.Point
		wantGain float64
		wantLoss float64
	}{
		{name: "scenario 36: the 2 m run is noise", give: profile(100, 102, 100, 110), wantGain: 10, wantLoss: 0},
		{name: "no point", give: nil},
		{name: "one point", give: profile(100)},
		{name: "flat", give: profile(100, 100, 100)},
		{name: "runs of exactly 3 m do not count", give: profile(100, 101, 103, 100), wantGain: 0, wantLoss: 0},
		{name: "a run just over 3 m counts", give: profile(100, 101.5, 103.25), wantGain: 3.25},
		{name: "a plateau ends the run", give: profile(100, 102, 102, 104), wantGain: 0},
		{name: "a dip ends the run: only what follows it counts", give: profile(100, 103, 102.9, 106.1), wantGain: 3.2, wantLoss: 0},
		{name: "steady climb then descent", give: profile(200, 210, 230, 260, 240, 205), wantGain: 60, wantLoss: 55},
		{name: "descent alone", give: profile(1200, 1100, 1000, 999.5), wantLoss: 200.5},
		{name: "jitter cuts a climb into runs", give: profile(100, 101, 100.5, 105, 104.8, 112), wantGain: 4.5 + 7.2, wantLoss: 0},
		{name: "small runs never add up", give: profile(100, 102, 101, 103, 102, 104, 103, 105), wantGain: 0, wantLoss: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gain, loss := gpx.Ascent(tt.give)
			assert.InDelta(t, tt.wantGain, gain, 1e-9, "gain")
			assert.InDelta(t, tt.wantLoss, loss, 1e-9, "loss")
		})
	}
}

func BenchmarkAscentLong(b *testing.B) {
	points := routefixture.Long()
	for b.Loop() {
		gpx.Ascent(points)
	}
}
