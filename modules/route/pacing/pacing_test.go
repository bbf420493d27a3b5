package pacing_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/decimate"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/pacing"
	"cairn.dev/cairn/modules/route/routefixture"
)

// leg is the longest step between two decimated points of a zigzag route, in
// km: a cut at the first point reaching its target overshoots by less.
var leg = math.Hypot(routefixture.ZigzagLeg, 2*routefixture.ZigzagSwing) / 1000

// newRoute prepares raw points the way the importer does.
func newRoute(t testing.TB, raw []geo.Point) pacing.Route {
	t.Helper()
	gain, _ := gpx.Ascent(raw)
	return pacing.Route{
		Decimated: decimate.Simplify(raw, decimate.Tolerance),
		Raw:       raw,
		Distance:  geo.Length(raw) / 1000,
		Ascent:    gain,
	}
}

// zigzag is a flat route of km kilometres; with hill > 0, hills of that
// height every 30 km.
func zigzag(km, hill float64) []geo.Point {
	raw := routefixture.Zigzag(km * 1000)
	if hill > 0 {
		routefixture.Hills(raw, hill, 30_000)
	}
	return raw
}

// TestPlanScenarios runs test-scenarios.md 29–34. Figures are the scenarios'
// own, to 0.1 km. A stage that is not the last ends at the first decimated
// point reaching its target, so it is at least the target and less than one
// leg more; the last stage absorbs those overshoots.
func TestPlanScenarios(t *testing.T) {
	t.Parallel()

	type give struct {
		km, hill float64
		params   pacing.Params
	}
	tests := []struct {
		name        string
		give        give
		wantTargets []float64
		wantStages  []float64
		wantErr     error
	}{
		{
			name:        "29 flat 300 km over 3 days, cap 300",
			give:        give{km: 300, params: pacing.Params{Days: 3, MaxDistance: 300}},
			wantTargets: []float64{110.7, 99.6, 89.7},
			wantStages:  []float64{110.7, 99.6, 89.7},
		},
		{
			name:        "30 same route with the default cap 80",
			give:        give{km: 300, params: pacing.Params{Days: 3}},
			wantTargets: []float64{80, 80, 80},
			wantStages:  []float64{80, 80, 140},
		},
		{
			name:        "31 300 km with 3000 m of climbing, penalty 50",
			give:        give{km: 300, hill: 300, params: pacing.Params{Days: 3, MaxDistance: 300, ElevationPenalty: 50}},
			wantTargets: []float64{112.8, 99.6, 87.6},
			wantStages:  []float64{112.8, 99.6, 87.6},
		},
		{
			name:        "32 200 km without dates, cap 80",
			give:        give{km: 200, params: pacing.Params{MaxDistance: 80}},
			wantTargets: []float64{73.8, 66.4, 59.8},
			wantStages:  []float64{73.8, 66.4, 59.8},
		},
		{
			name:        "33 100 km over 5 days, fatigue 0.5: the floor exhausts the route",
			give:        give{km: 100, params: pacing.Params{Days: 5, Fatigue: 0.5}},
			wantTargets: []float64{51.6, 30, 30, 30, 30},
			wantStages:  []float64{51.6, 30, 18.4},
		},
		{
			name:        "34 60 km without dates",
			give:        give{km: 60},
			wantTargets: []float64{60},
			wantStages:  []float64{60},
			wantErr:     pacing.ErrMinStages,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			route := newRoute(t, zigzag(tt.give.km, tt.give.hill))
			require.InDelta(t, tt.give.km, route.Distance, 0.001)

			days := pacing.Days(route.Distance, tt.give.params)
			targets := pacing.Targets(route.Distance, route.Ascent, days, tt.give.params)
			require.Len(t, targets, len(tt.wantTargets))
			for i, want := range tt.wantTargets {
				assert.InDelta(t, want, targets[i], 0.05, "target of day %d", i)
			}

			stages, err := pacing.Plan(route, tt.give.params)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.Len(t, stages, len(tt.wantStages))

			total := 0.0
			for i, s := range stages {
				total += s.Distance
				if i < len(stages)-1 {
					assert.GreaterOrEqual(t, s.Distance, targets[i], "stage %d reaches its target", i)
					assert.Less(t, s.Distance, targets[i]+leg, "stage %d ends at the first point past it", i)
					assert.InDelta(t, tt.wantStages[i], s.Distance, leg+0.05, "stage %d", i)
				} else {
					assert.InDelta(t, tt.wantStages[i], s.Distance, float64(i)*leg+0.05, "last stage %d", i)
				}
			}
			assert.InDelta(t, geo.Length(route.Decimated)/1000, total, 1e-6, "the stages cover the route once")
		})
	}
}

func TestPlanClimbingOfScenario31(t *testing.T) {
	t.Parallel()
	route := newRoute(t, zigzag(300, 300))
	// Ten 300 m hills; sampling may shave the summits by less than a metre each.
	require.InDelta(t, 2995, route.Ascent, 5)

	stages, err := pacing.Plan(route, pacing.Params{Days: 3, MaxDistance: 300})
	require.NoError(t, err)
	gain, loss := 0.0, 0.0
	for _, s := range stages {
		gain += s.Ascent
		loss += s.Descent
	}
	// A cut inside a climb splits one run in two; both halves still count.
	assert.InDelta(t, route.Ascent, gain, 1)
	assert.InDelta(t, route.Ascent, loss, 1)
}

func TestPlanStagesJoin(t *testing.T) {
	t.Parallel()
	route := newRoute(t, zigzag(250, 120))
	stages, err := pacing.Plan(route, pacing.Params{})
	require.NoError(t, err)
	require.Len(t, stages, 4)

	assert.Equal(t, route.Decimated[0], stages[0].Start)
	assert.Equal(t, route.Decimated[len(route.Decimated)-1], stages[len(stages)-1].End)
	for i, s := range stages {
		assert.Equal(t, s.Start, s.Geometry[0], "stage %d geometry starts at Start", i)
		assert.Equal(t, s.End, s.Geometry[len(s.Geometry)-1], "stage %d geometry ends at End", i)
		if i > 0 {
			assert.Equal(t, stages[i-1].End, s.Start, "stage %d starts where %d ended", i, i-1)
		}
	}
}

func TestPlanClimbingComesFromRawPoints(t *testing.T) {
	t.Parallel()
	raw := zigzag(90, 100)
	route := newRoute(t, raw)
	// Flatten the decimated copy: any climbing found must come from Raw.
	for i := range route.Decimated {
		route.Decimated[i].Ele = 0
	}

	stages, err := pacing.Plan(route, pacing.Params{Days: 3, Fatigue: 1})
	require.NoError(t, err)
	require.Len(t, stages, 3)
	for i, s := range stages {
		// One 100 m hill a day; a cut lands within a leg of the valley floor.
		assert.InDelta(t, 100, s.Ascent, 4, "stage %d", i)
		assert.InDelta(t, 100, s.Descent, 4, "stage %d", i)
	}
}

func TestPlanWithoutRawPoints(t *testing.T) {
	t.Parallel()
	route := newRoute(t, zigzag(200, 0))
	route.Raw = nil

	stages, err := pacing.Plan(route, pacing.Params{})
	require.NoError(t, err)
	require.Len(t, stages, 3)
	for _, s := range stages {
		assert.Zero(t, s.Ascent)
	}
}

func TestPlanTooShortToCut(t *testing.T) {
	t.Parallel()

	p := geo.Point{Lat: 45, Lon: 6}
	tests := []struct {
		name string
		give []geo.Point
	}{
		{name: "no point", give: nil},
		{name: "one point", give: []geo.Point{p}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stages, err := pacing.Plan(pacing.Route{Decimated: tt.give, Raw: tt.give}, pacing.Params{Days: 3})
			require.ErrorIs(t, err, pacing.ErrMinStages)
			assert.Empty(t, stages)
		})
	}
}

func TestErrMinStagesCarriesItsCode(t *testing.T) {
	t.Parallel()
	_, err := pacing.Plan(newRoute(t, zigzag(60, 0)), pacing.Params{})

	var perr *pacing.Error
	require.True(t, errors.As(err, &perr))
	assert.Equal(t, "MIN_STAGES", perr.Code)
	assert.Equal(t, pacing.CodeMinStages, perr.Code)
}

func TestPlanIsDeterministic(t *testing.T) {
	t.Parallel()
	route := newRoute(t, routefixture.Route(7, 20_000, 25))
	first, err1 := pacing.Plan(route, pacing.Params{})
	second, err2 := pacing.Plan(route, pacing.Params{})
	require.NoError(t, err1)
	require.NoError(t, err2)
	assert.Equal(t, first, second)
}

func TestTargets(t *testing.T) {
	t.Parallel()

	type give struct {
		distance, ascent float64
		days             int
		params           pacing.Params
	}
	tests := []struct {
		name string
		give give
		want []float64
	}{
		{
			name: "defaults: fatigue 0.9, cap 80",
			give: give{distance: 200, days: 3},
			want: []float64{200 / 2.71, 200 / 2.71 * 0.9, 200 / 2.71 * 0.81},
		},
		{
			name: "penalty spread evenly",
			give: give{distance: 300, ascent: 3000, days: 3, params: pacing.Params{MaxDistance: 300}},
			want: []float64{360/2.71 - 20, 360/2.71*0.9 - 20, 360/2.71*0.81 - 20},
		},
		{
			name: "no fatigue",
			give: give{distance: 240, days: 3, params: pacing.Params{Fatigue: 1}},
			want: []float64{80, 80, 80},
		},
		{
			name: "floor at 30 km",
			give: give{distance: 100, days: 5, params: pacing.Params{Fatigue: 0.5}},
			want: []float64{100 / 1.9375, 30, 30, 30, 30},
		},
		{
			name: "cap after the floor",
			give: give{distance: 100, days: 4, params: pacing.Params{MaxDistance: 25}},
			want: []float64{25, 25, 25, 25},
		},
		{
			name: "unusable settings take the defaults",
			give: give{distance: 200, ascent: 500, days: 3, params: pacing.Params{Fatigue: -1, ElevationPenalty: 0, MaxDistance: -5}},
			want: pacing.Targets(200, 500, 3, pacing.Params{Fatigue: 0.9, ElevationPenalty: 50, MaxDistance: 80}),
		},
		{
			name: "no day",
			give: give{distance: 100, days: 0},
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := pacing.Targets(tt.give.distance, tt.give.ascent, tt.give.days, tt.give.params)
			require.Len(t, got, len(tt.want))
			for i := range tt.want {
				assert.InDelta(t, tt.want[i], got[i], 1e-9, "day %d", i)
			}
		})
	}
}

func TestTargetsAddUpBeforeFloorAndCap(t *testing.T) {
	t.Parallel()
	params := pacing.Params{Fatigue: 0.8, ElevationPenalty: 40, MaxDistance: 1000}
	targets := pacing.Targets(900, 4000, 6, params)
	for _, tg := range targets {
		require.Greater(t, tg, pacing.MinTarget, "this case must stay clear of the floor")
	}
	sum := 0.0
	for _, tg := range targets {
		sum += tg
	}
	assert.InDelta(t, 900, sum, 1e-9)
}

// TestTargetsGiveTheCapSurplusBack: when the day count comes from the cap
// and the cap holds the first days back, the days under it take the
// distance over, so no day passes the cap, and fatigue still orders the
// days. Dates keep the rule of scenario 30: the last day absorbs the rest.
func TestTargetsGiveTheCapSurplusBack(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		give     float64 // km
		giveDays int
		params   pacing.Params
		wantSum  float64 // 0: less than the distance, the rest left to the last day
	}{
		{name: "1,433 km at 80 a day", give: 1433, giveDays: 18, params: pacing.Params{MaxDistance: 80}, wantSum: 1433},
		{name: "climbing as well", give: 1433, giveDays: 20, params: pacing.Params{MaxDistance: 80, ElevationPenalty: 50}, wantSum: 1433},
		{name: "strong fatigue", give: 500, giveDays: 8, params: pacing.Params{MaxDistance: 80, Fatigue: 0.6}, wantSum: 500},
		{name: "days too few for the cap", give: 300, giveDays: 3, params: pacing.Params{MaxDistance: 80}, wantSum: 240},
		{name: "dates: the last day absorbs the rest", give: 1433, giveDays: 18, params: pacing.Params{Days: 18, MaxDistance: 80}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			targets := pacing.Targets(tt.give, 4000, tt.giveDays, tt.params)
			require.Len(t, targets, tt.giveDays)
			sum := 0.0
			for i, tg := range targets {
				sum += tg
				assert.LessOrEqual(t, tg, tt.params.MaxDistance, "day %d within the cap", i)
				if i > 0 {
					assert.LessOrEqual(t, tg, targets[i-1], "day %d no longer than the day before", i)
				}
			}
			if tt.wantSum == 0 {
				assert.Less(t, sum, tt.give)
			} else {
				assert.InDelta(t, tt.wantSum, sum, 1e-6)
			}
			assert.Equal(t, tt.params.MaxDistance, targets[0], "the first day is at the cap")
		})
	}
}

func TestDays(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name     string
		give     float64
		giveDays int
		giveMax  float64
		want     int
	}{
		{name: "from the dates", give: 300, giveDays: 3, want: 3},
		{name: "dates win over the cap", give: 300, giveDays: 2, giveMax: 80, want: 2},
		{name: "ceil of distance over cap", give: 200, giveMax: 80, want: 3},
		{name: "exact multiple", give: 160, giveMax: 80, want: 2},
		{name: "default cap 80", give: 2108, want: 27},
		{name: "short route", give: 60, want: 1},
		{name: "empty route", give: 0, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, pacing.Days(tt.give, pacing.Params{Days: tt.giveDays, MaxDistance: tt.giveMax}))
		})
	}
}

func TestDayCount(t *testing.T) {
	t.Parallel()

	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600) // no zone database: the DST case degrades to a plain one
	}
	date := func(y int, m time.Month, d int, loc *time.Location) time.Time {
		return time.Date(y, m, d, 0, 0, 0, 0, loc)
	}
	tests := []struct {
		name string
		give [2]time.Time
		want int
	}{
		{name: "same day", give: [2]time.Time{date(2025, 6, 1, time.UTC), date(2025, 6, 1, time.UTC)}, want: 1},
		{name: "three days", give: [2]time.Time{date(2025, 6, 1, time.UTC), date(2025, 6, 3, time.UTC)}, want: 3},
		{name: "across a month", give: [2]time.Time{date(2025, 6, 29, time.UTC), date(2025, 7, 2, time.UTC)}, want: 4},
		{name: "across the spring clock change", give: [2]time.Time{date(2025, 3, 29, paris), date(2025, 3, 31, paris)}, want: 3},
		{name: "time of day ignored", give: [2]time.Time{time.Date(2025, 6, 1, 23, 0, 0, 0, time.UTC), time.Date(2025, 6, 2, 1, 0, 0, 0, time.UTC)}, want: 2},
		{name: "end before start", give: [2]time.Time{date(2025, 6, 3, time.UTC), date(2025, 6, 1, time.UTC)}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, pacing.DayCount(tt.give[0], tt.give[1]))
		})
	}
}
