package routing_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/routing"
)

func TestGreatCircleRoute(t *testing.T) {
	t.Parallel()

	grenoble := geo.Point{Lat: 45.1885, Lon: 5.7245, Ele: 212}
	vif := geo.Point{Lat: 45.0556, Lon: 5.6717, Ele: 310}
	laMure := geo.Point{Lat: 44.9019, Lon: 5.7856, Ele: 880}

	tests := []struct {
		name      string
		give      []geo.Point
		speed     float64
		wantSpeed float64 // km/h the duration must reflect
	}{
		{name: "one leg at the default speed", give: []geo.Point{grenoble, vif}, wantSpeed: 15},
		{name: "through a waypoint", give: []geo.Point{grenoble, vif, laMure}, wantSpeed: 15},
		{name: "configured speed", give: []geo.Point{grenoble, laMure}, speed: 20, wantSpeed: 20},
		{name: "negative speed means the default", give: []geo.Point{grenoble, laMure}, speed: -3, wantSpeed: 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := routing.GreatCircle{Speed: tt.speed}.Route(context.Background(), tt.give)
			require.NoError(t, err)

			wantMetres := 0.0
			for i := 1; i < len(tt.give); i++ {
				wantMetres += geo.Distance(tt.give[i-1], tt.give[i])
			}
			assert.InDelta(t, wantMetres/1000, got.Distance, 1e-9, "km by geo.Distance")
			wantDuration := time.Duration(wantMetres / 1000 / tt.wantSpeed * float64(time.Hour))
			assert.InDelta(t, float64(wantDuration), float64(got.Duration), float64(time.Millisecond))
			assert.Zero(t, got.ElevationGain)
			assert.True(t, got.Approximate, "a line that knows no roads is always approximate")

			assert.Equal(t, tt.give[0], got.Coordinates[0])
			assert.Equal(t, tt.give[len(tt.give)-1], got.Coordinates[len(got.Coordinates)-1])
			assertContainsInOrder(t, got.Coordinates, tt.give)
			assertSpacedWithin(t, got.Coordinates, routing.DefaultSpacing)
			// The line through the densified points is as long as the
			// geodesics between via points: the arcs are not detours.
			assert.InDelta(t, wantMetres, geo.Length(got.Coordinates), wantMetres*1e-3)
		})
	}
}

func TestGreatCircleFollowsTheGreatCircle(t *testing.T) {
	t.Parallel()
	// Paris to Vladivostok: far enough for the great circle to bow north
	// of both ends, which a straight line in latitude and longitude would not.
	a := geo.Point{Lat: 48.8566, Lon: 2.3522}
	b := geo.Point{Lat: 43.1155, Lon: 131.8855}

	got, err := routing.GreatCircle{Spacing: 50_000}.Route(context.Background(), []geo.Point{a, b})
	require.NoError(t, err)

	whole := geo.Haversine(a, b)
	maxLat := -90.0
	for _, p := range got.Coordinates {
		// On the great circle a→b, going through p adds no length.
		assert.InDelta(t, whole, geo.Haversine(a, p)+geo.Haversine(p, b), 1, "point %v is off the arc", p)
		maxLat = math.Max(maxLat, p.Lat)
	}
	assert.Greater(t, maxLat, 60.0, "the arc bows towards the pole")
	assertSpacedWithin(t, got.Coordinates, 50_000)
}

func TestGreatCircleCrossesTheAntimeridianTheShortWay(t *testing.T) {
	t.Parallel()
	a := geo.Point{Lat: -16.8, Lon: 179.6}
	b := geo.Point{Lat: -16.6, Lon: -179.6}

	got, err := routing.GreatCircle{}.Route(context.Background(), []geo.Point{a, b})
	require.NoError(t, err)

	assert.Less(t, got.Distance, 100.0)
	for _, p := range got.Coordinates {
		assert.GreaterOrEqual(t, math.Abs(p.Lon), 179.59, "point %v went round the world", p)
	}
	assertSpacedWithin(t, got.Coordinates, routing.DefaultSpacing)
}

func TestGreatCircleInterpolatesElevation(t *testing.T) {
	t.Parallel()
	a := geo.Point{Lat: 45, Lon: 6, Ele: 100}
	b := geo.Point{Lat: 45.05, Lon: 6, Ele: 600}

	got, err := routing.GreatCircle{}.Route(context.Background(), []geo.Point{a, b})
	require.NoError(t, err)

	require.Greater(t, len(got.Coordinates), 3)
	for i := 1; i < len(got.Coordinates); i++ {
		assert.Greater(t, got.Coordinates[i].Ele, got.Coordinates[i-1].Ele, "no false spikes")
	}
	assert.Zero(t, got.ElevationGain, "no elevation model, no claimed climb")
}

func TestGreatCircleKeepsRepeatedPoints(t *testing.T) {
	t.Parallel()
	p := geo.Point{Lat: 45, Lon: 6}

	got, err := routing.GreatCircle{}.Route(context.Background(), []geo.Point{p, p})
	require.NoError(t, err)

	assert.Equal(t, []geo.Point{p, p}, got.Coordinates)
	assert.Zero(t, got.Distance)
	assert.Zero(t, got.Duration)
}

func TestGreatCircleBoundsThePointCount(t *testing.T) {
	t.Parallel()
	// A metre spacing over 10,000 km would be ten million points.
	a := geo.Point{Lat: 0, Lon: 0}
	b := geo.Point{Lat: 0, Lon: 90}

	got, err := routing.GreatCircle{Spacing: 1}.Route(context.Background(), []geo.Point{a, b})
	require.NoError(t, err)

	assert.LessOrEqual(t, len(got.Coordinates), 100_001)
	assert.Equal(t, b, got.Coordinates[len(got.Coordinates)-1])
}

func TestGreatCircleRefuses(t *testing.T) {
	t.Parallel()

	ok := geo.Point{Lat: 45, Lon: 6}
	tests := []struct {
		name string
		give []geo.Point
		want error
	}{
		{name: "no point", give: nil, want: routing.ErrTooFewPoints},
		{name: "one point", give: []geo.Point{ok}, want: routing.ErrTooFewPoints},
		{name: "latitude out of range", give: []geo.Point{ok, {Lat: 90.5, Lon: 6}}, want: routing.ErrInvalidPoint},
		{name: "longitude out of range", give: []geo.Point{{Lat: 45, Lon: -180.1}, ok}, want: routing.ErrInvalidPoint},
		{name: "NaN", give: []geo.Point{ok, {Lat: math.NaN(), Lon: 6}}, want: routing.ErrInvalidPoint},
		{name: "infinite elevation", give: []geo.Point{ok, {Lat: 45, Lon: 6, Ele: math.Inf(1)}}, want: routing.ErrInvalidPoint},
		{name: "antipodal", give: []geo.Point{{Lat: 10, Lon: 20}, {Lat: -10, Lon: -160}}, want: routing.ErrAntipodal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := routing.GreatCircle{}.Route(context.Background(), tt.give)
			assert.ErrorIs(t, err, tt.want)
		})
	}
}

func TestGreatCircleHonoursACancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := routing.GreatCircle{}.Route(ctx, []geo.Point{{Lat: 45, Lon: 6}, {Lat: 46, Lon: 6}})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestNew(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give routing.Config
		want routing.Router
	}{
		{name: "zero config is the great circle", give: routing.Config{}, want: routing.GreatCircle{}},
		{name: "speed is passed on", give: routing.Config{Speed: 22}, want: routing.GreatCircle{Speed: 22}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := routing.New(tt.give)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNewWithABaseURLGivesBRouter(t *testing.T) {
	t.Parallel()
	got, err := routing.New(routing.Config{BRouter: routing.BRouterOptions{BaseURL: "http://brouter:17777"}})
	require.NoError(t, err)
	assert.IsType(t, &routing.BRouter{}, got)
}

// assertContainsInOrder checks that every via point appears in line, in
// order: the route goes through each waypoint.
func assertContainsInOrder(t *testing.T, line, via []geo.Point) {
	t.Helper()
	next := 0
	for _, p := range line {
		if next < len(via) && p == via[next] {
			next++
		}
	}
	assert.Equal(t, len(via), next, "every via point is on the line, in order")
}

// assertSpacedWithin checks consecutive points are at most spacing metres
// apart, with the slack of spherical against ellipsoidal lengths.
func assertSpacedWithin(t *testing.T, line []geo.Point, spacing float64) {
	t.Helper()
	for i := 1; i < len(line); i++ {
		if d := geo.Distance(line[i-1], line[i]); d > spacing*1.01 {
			t.Errorf("points %d and %d are %.0f m apart, more than %.0f m", i-1, i, d, spacing)
			return
		}
	}
}
