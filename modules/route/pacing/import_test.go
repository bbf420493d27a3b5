package pacing_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/decimate"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/pacing"
	"cairn.dev/cairn/modules/route/routefixture"
)

// mm is a millimetre in km, the precision of a cut.
const mm = 1e-6

// TestStraightRouteIsCutBetweenItsEnds: a nearly straight recording of
// 200,000 points over 1,433 km decimates to its two ends, and pacing still
// cuts it into days of at most the cap, each as long as its target.
func TestStraightRouteIsCutBetweenItsEnds(t *testing.T) {
	t.Parallel()
	route := newRoute(t, routefixture.Line(200_000, 1_433_000))
	require.Less(t, len(route.Decimated), 10, "a straight line keeps (almost) only its ends")
	line := geo.Length(route.Decimated) / 1000
	require.InDelta(t, 1433, line, 1)
	require.Greater(t, route.Distance, line, "the jitter makes the recording longer than the line")

	params := pacing.Params{MaxDistance: 80}
	stages, err := pacing.Plan(route, params)
	require.NoError(t, err)
	days := pacing.Days(route.Distance, params)
	require.Equal(t, int(math.Ceil(route.Distance/80)), days)
	require.Len(t, stages, days, "one stage a day")

	targets := pacing.Targets(route.Distance, route.Ascent, days, params)
	total := 0.0
	for i, s := range stages {
		total += s.Distance
		assert.LessOrEqual(t, s.Distance, 80+mm, "stage %d within the cap", i)
		if i < len(stages)-1 {
			assert.InDelta(t, targets[i], s.Distance, mm, "stage %d is its target", i)
		}
		if i > 0 {
			assert.Equal(t, stages[i-1].End, s.Start, "stage %d starts where %d ended", i, i-1)
		}
		assert.Equal(t, s.Start, s.Geometry[0])
		assert.Equal(t, s.End, s.Geometry[len(s.Geometry)-1])
	}
	// Cuts lie on the great ellipse, which runs a few centimetres longer than
	// the geodesic over 1,433 km.
	assert.InDelta(t, line, total, 1e-4, "the stages cover the line once")

	gain := 0.0
	for _, s := range stages {
		gain += s.Ascent
	}
	assert.InDelta(t, route.Ascent, gain, 0.02*route.Ascent, "each day climbs its own part of the hills")
}

// TestZigzagOf200000Points is the upload that held a core for minutes: it
// decimates to exactly its turns, every dropped point within the tolerance
// of its chord, and its days are cut at their targets.
func TestZigzagOf200000Points(t *testing.T) {
	t.Parallel()
	raw := routefixture.Zigzag(10_000_000)
	require.Greater(t, len(raw), 199_000)
	route := newRoute(t, raw)

	perLeg := int(routefixture.ZigzagLeg / routefixture.ZigzagStep)
	require.Len(t, route.Decimated, (len(raw)-1+perLeg-1)/perLeg+1, "the turns and the ends")
	for k, p := range route.Decimated[:len(route.Decimated)-1] {
		require.Equal(t, raw[k*perLeg], p, "turn %d", k)
	}
	k := 0
	for i, p := range raw {
		if k+1 < len(route.Decimated) && p == route.Decimated[k+1] {
			k++
			continue
		}
		dev := offPlane(route.Decimated[k], route.Decimated[k+1], p)
		require.LessOrEqualf(t, dev, decimate.Tolerance, "point %d dropped %.3f m off its chord", i, dev)
	}

	params := pacing.Params{}
	stages, err := pacing.Plan(route, params)
	require.NoError(t, err)
	days := pacing.Days(route.Distance, params)
	require.Equal(t, int(math.Ceil(route.Distance/80)), days)
	require.Len(t, stages, days)
	targets := pacing.Targets(route.Distance, route.Ascent, days, params)
	// turnAt[k] is the distance in km along the route to turn k.
	turnAt := []float64{0}
	for k := 1; k < len(route.Decimated); k++ {
		turnAt = append(turnAt, turnAt[k-1]+geo.Distance(route.Decimated[k-1], route.Decimated[k])/1000)
	}
	along := 0.0
	for i, s := range stages {
		assert.LessOrEqual(t, s.Distance, 80+mm, "stage %d within the cap", i)
		along += s.Distance
		if i == len(stages)-1 {
			break
		}
		assert.InDelta(t, targets[i], s.Distance, mm, "stage %d is its target", i)
		// The cut lies on the leg the targets so far reach, at their sum.
		k, _ := slices.BinarySearch(turnAt, along)
		a, b := route.Decimated[k-1], route.Decimated[k]
		assert.Less(t, offPlane(a, b, s.End), 0.001, "stage %d ends on the route", i)
		assert.InDelta(t, along-turnAt[k-1], geo.Distance(a, s.End)/1000, mm*float64(i+1), "stage %d ends at its distance", i)
	}
	assert.InDelta(t, route.Distance, along, 1e-5, "the days cover the route")
}

func TestPlanStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	route := newRoute(t, zigzag(300, 0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stages, err := pacing.PlanContext(ctx, route, pacing.Params{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, stages)
}

// offPlane is p's distance in metres from the plane through the Earth's
// centre, a and b: the deviation decimation measures, written out here from
// positions on the ellipsoid.
func offPlane(a, b, p geo.Point) float64 {
	va, vb, vp := geo.ECEF(a), geo.ECEF(b), geo.ECEF(p)
	n := va.Cross(vb)
	return math.Abs(n.Dot(vp)) / n.Norm()
}
