package geo_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
)

func TestSurfaceUndoesECEF(t *testing.T) {
	t.Parallel()
	for _, p := range []geo.Point{{Lat: 45.9, Lon: 6.8}, {Lat: -33.9, Lon: 18.4}, {Lat: 0, Lon: 180}, {Lat: 89.99, Lon: -120}, {Lat: -90, Lon: 0}} {
		got := geo.Surface(geo.ECEF(p))
		assert.Less(t, geo.Distance(p, got), 1e-6, "%v came back as %v", p, got)
	}
}

func TestToward(t *testing.T) {
	t.Parallel()

	alps := geo.Point{Lat: 45.9, Lon: 6.8, Ele: 1000}
	tests := []struct {
		name string
		give [2]geo.Point
		frac float64 // of the segment's length
	}{
		{name: "a GPS step", give: [2]geo.Point{alps, {Lat: 45.9002, Lon: 6.8001, Ele: 1010}}, frac: 0.3},
		{name: "a day", give: [2]geo.Point{alps, {Lat: 46.6, Lon: 7.5, Ele: 400}}, frac: 0.8},
		{name: "a straight route", give: [2]geo.Point{{Lat: 44, Lon: 4}, {Lat: 50.56, Lon: 20.38}}, frac: 0.057},
		{name: "across an ocean", give: [2]geo.Point{{Lat: 40.6, Lon: -73.8}, {Lat: 51.5, Lon: -0.5}}, frac: 0.5},
		{name: "over the antimeridian", give: [2]geo.Point{{Lat: -17, Lon: 179.9}, {Lat: -17.1, Lon: -179.8}}, frac: 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := tt.give[0], tt.give[1]
			total := geo.Distance(a, b)
			d := tt.frac * total
			p := geo.Toward(a, b, d)
			assert.InDelta(t, d, geo.Distance(a, p), 1e-6, "at the distance asked")
			// On the way: the detour through p is the great ellipse's excess
			// over the geodesic, a millimetre at 100 km, 1.4 m across the
			// Atlantic.
			assert.InDelta(t, total, geo.Distance(a, p)+geo.Distance(p, b), 1e-6*total+1e-6)
			assert.InDelta(t, a.Ele+tt.frac*(b.Ele-a.Ele), p.Ele, 0.01*math.Abs(b.Ele-a.Ele)+1e-9, "elevation in proportion")
			assert.Equal(t, a, geo.Toward(a, b, 0))
			assert.Equal(t, a, geo.Toward(a, b, -5))
			assert.Equal(t, b, geo.Toward(a, b, total))
			assert.Equal(t, b, geo.Toward(a, b, total+1))
		})
	}
}

func TestInterpolate(t *testing.T) {
	t.Parallel()
	a, b := geo.Point{Lat: 0, Lon: 0}, geo.Point{Lat: 0, Lon: 10}
	mid := geo.Interpolate(a, b, 0.5)
	assert.InDelta(t, 0, mid.Lat, 1e-12)
	assert.InDelta(t, 5, mid.Lon, 1e-12)

	same := geo.Point{Lat: 45, Lon: 6, Ele: 100}
	require.Equal(t, same.Lat, geo.Interpolate(same, same, 0.5).Lat)
	assert.Equal(t, same, geo.Interpolate(same, geo.Point{Lat: -45, Lon: -174}, 0.5), "antipodal: no plane, the start")
}
