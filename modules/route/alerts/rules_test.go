package alerts_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/words"
)

// at moves from by north and east metres.
func at(from geo.Point, north, east float64) geo.Point {
	const m = geo.EarthRadius * math.Pi / 180
	return geo.Point{Lat: from.Lat + north/m, Lon: from.Lon + east/(m*math.Cos(from.Lat*math.Pi/180))}
}

var origin = geo.Point{Lat: 45, Lon: 5}

// day is a straight riding stage of km kilometres due east of origin.
func day(km float64) alerts.Stage {
	var g []geo.Point
	for d := 0.0; d <= km*1000; d += 1000 {
		g = append(g, at(origin, 0, d))
	}
	return alerts.Stage{Geometry: g, Distance: km, Start: g[0], End: g[len(g)-1]}
}

func ridden(length float64, tags map[string]string) alerts.Ridden {
	return alerts.Ridden{WayID: 1, Tags: tags, Length: length, Stretches: [][]geo.Point{{origin, at(origin, 0, length)}}}
}

func TestSurfaceRough(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		give []alerts.Ridden
		want []alerts.Code
	}{
		{"500 m of gravel", []alerts.Ridden{ridden(500, map[string]string{"surface": "gravel"})}, []alerts.Code{alerts.CodeSurfaceRough}},
		{"490 m of gravel", []alerts.Ridden{ridden(490, map[string]string{"surface": "gravel"})}, nil},
		{"two ways adding up", []alerts.Ridden{ridden(300, map[string]string{"surface": "dirt"}), ridden(200, map[string]string{"surface": "sett"})}, []alerts.Code{alerts.CodeSurfaceRough}},
		{"any ; part", []alerts.Ridden{ridden(600, map[string]string{"surface": "asphalt;gravel"})}, []alerts.Code{alerts.CodeSurfaceRough}},
		{"asphalt", []alerts.Ridden{ridden(5000, map[string]string{"surface": "asphalt"})}, nil},
		{"no surface, tracktype grade4", []alerts.Ridden{ridden(600, map[string]string{"tracktype": "grade4"})}, []alerts.Code{alerts.CodeSurfaceRough}},
		{"no surface, tracktype grade2", []alerts.Ridden{ridden(600, map[string]string{"tracktype": "grade2"})}, nil},
		{"no surface, smoothness bad", []alerts.Ridden{ridden(600, map[string]string{"smoothness": "bad"})}, []alerts.Code{alerts.CodeSurfaceRough}},
		{"a paved surface wins over the track type", []alerts.Ridden{ridden(600, map[string]string{"surface": "asphalt", "tracktype": "grade5"})}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.ElementsMatch(t, tt.want, codes(alerts.SurfaceRough(0, day(20), tt.give)))
		})
	}
	rest := day(0)
	rest.IsRestDay = true
	require.Empty(t, alerts.SurfaceRough(0, rest, []alerts.Ridden{ridden(900, map[string]string{"surface": "gravel"})}), "rest days ride nothing")
	a := alerts.SurfaceRough(1, day(20), []alerts.Ridden{ridden(700, map[string]string{"surface": "gravel"}), ridden(300, map[string]string{"surface": "dirt"})})[0]
	require.Equal(t, "1.0 km on rough surfaces (dirt, gravel).", a.Message)
	require.Equal(t, alerts.ActionNavigate, a.Action.Kind)
	require.Len(t, a.Action.Payload["segments"], 2)
}

func TestTraffic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		give []alerts.Ridden
		want []alerts.Code
	}{
		{"primary 600 m", []alerts.Ridden{ridden(600, map[string]string{"highway": "primary"})}, []alerts.Code{alerts.CodeTrafficMainRoad}},
		{"primary 400 m", []alerts.Ridden{ridden(400, map[string]string{"highway": "primary"})}, nil},
		{"trunk with a cycle lane", []alerts.Ridden{ridden(900, map[string]string{"highway": "trunk", "cycleway:right": "lane"})}, nil},
		{"primary, cycleway=no", []alerts.Ridden{ridden(900, map[string]string{"highway": "primary", "cycleway": "no"})}, []alerts.Code{alerts.CodeTrafficMainRoad}},
		{"primary, bicycle=designated", []alerts.Ridden{ridden(900, map[string]string{"highway": "primary", "bicycle": "designated"})}, nil},
		{"secondary at 70", []alerts.Ridden{ridden(900, map[string]string{"highway": "secondary", "maxspeed": "70"})}, []alerts.Code{alerts.CodeTrafficSecondaryRoadFast}},
		{"secondary at FR:80", []alerts.Ridden{ridden(900, map[string]string{"highway": "secondary", "maxspeed": "FR:80"})}, []alerts.Code{alerts.CodeTrafficSecondaryRoadFast}},
		{"secondary at 50 km/h", []alerts.Ridden{ridden(900, map[string]string{"highway": "secondary", "maxspeed": "50 km/h"})}, []alerts.Code{alerts.CodeTrafficSecondaryRoadSlow}},
		{"secondary unsigned", []alerts.Ridden{ridden(900, map[string]string{"highway": "secondary"})}, []alerts.Code{alerts.CodeTrafficSecondaryRoadSlow}},
		{"secondary at 35 mph is fast", []alerts.Ridden{ridden(900, map[string]string{"highway": "secondary", "maxspeed": "35 mph"})}, []alerts.Code{alerts.CodeTrafficSecondaryRoadFast}},
		{"a tertiary road is quiet", []alerts.Ridden{ridden(9000, map[string]string{"highway": "tertiary"})}, nil},
		{"all three", []alerts.Ridden{ridden(900, map[string]string{"highway": "secondary"}), ridden(900, map[string]string{"highway": "primary"}),
			ridden(900, map[string]string{"highway": "secondary", "maxspeed": "90"})},
			[]alerts.Code{alerts.CodeTrafficMainRoad, alerts.CodeTrafficSecondaryRoadFast, alerts.CodeTrafficSecondaryRoadSlow}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.ElementsMatch(t, tt.want, codes(alerts.Traffic(0, day(20), tt.give)))
		})
	}
	main := alerts.Traffic(0, day(20), []alerts.Ridden{ridden(600, map[string]string{"highway": "primary"}), ridden(700, map[string]string{"highway": "trunk"})})[0]
	require.Equal(t, alerts.SeverityCritical, main.Severity)
	require.Equal(t, "2 stretch(es) of main road without cycle lane, 1.3 km in all.", main.Message)
}

func TestRide(t *testing.T) {
	t.Parallel()
	s := day(3)
	ways := []alerts.WayLine{
		{WayID: 7, Tags: map[string]string{"highway": "primary"}, Points: []geo.Point{at(origin, 5, 500), at(origin, 5, 1500)}},      // 5 m off
		{WayID: 8, Tags: map[string]string{"highway": "track"}, Points: []geo.Point{at(origin, 40, 1500), at(origin, 40, 2500)}},     // 40 m off
		{WayID: 9, Tags: map[string]string{"highway": "path"}, Points: []geo.Point{at(origin, -1000, 2000), at(origin, 1000, 2200)}}, // crosses
	}
	got := alerts.Ride(s.Geometry, ways)
	byWay := map[int64]float64{}
	for _, r := range got {
		byWay[r.WayID] = r.Length
	}
	require.InDelta(t, 1000, byWay[7], 30, "ridden along for a kilometre")
	require.NotContains(t, byWay, int64(8), "40 m off is another road")
	require.Less(t, byWay[9], 100.0, "a crossing way is ridden for a few metres only")
}

func food(name string, along float64, hours string) alerts.Found {
	return alerts.Found{Name: name, Category: "bakery", Point: at(origin, 50, along), Off: 50, Along: along,
		Tags: map[string]string{"opening_hours": hours}}
}

func TestResupply(t *testing.T) {
	t.Parallel()
	trip := alerts.Trip{DepartureHour: 8, AverageSpeed: 15}
	require.Equal(t, []alerts.Code{alerts.CodeResupplyNoneOnStage}, codes(alerts.ResupplyNone(0, day(40), nil)))
	require.Empty(t, alerts.ResupplyNone(0, day(39), nil), "a short day is not told")
	require.Empty(t, alerts.ResupplyNone(0, day(60), []alerts.Found{food("A", 1000, "")}))

	monday := time.Date(2027, 6, 7, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		date *time.Time
		give []alerts.Found
		want []alerts.Code
	}{
		{"every shop closed on Monday", &monday, []alerts.Found{food("A", 5000, "Tu-Su 07:00-13:00"), food("B", 50_000, "Sa 08:00-12:00")},
			[]alerts.Code{alerts.CodeResupplyClosedAtPassage}},
		{"one open when passed", &monday, []alerts.Found{food("A", 5000, "Tu-Su 07:00-13:00"), food("B", 10_000, "Mo-Fr 08:00-19:00")}, nil},
		{"one of unknown hours: no claim", &monday, []alerts.Found{food("A", 5000, "Tu-Su 07:00-13:00"), food("B", 10_000, "")}, nil},
		{"closed when passed, open later", &monday, []alerts.Found{food("A", 4000, "Mo 14:00-19:00")}, []alerts.Code{alerts.CodeResupplyClosedAtPassage}},
		{"no date: no claim", nil, []alerts.Found{food("A", 5000, "Tu-Su 07:00-13:00")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.ElementsMatch(t, tt.want, codes(alerts.ResupplyClosed(0, trip, day(60), tt.date, time.UTC, tt.give)))
		})
	}

	// 80 km at 15 km/h from 8:00: riding 5h20, two breaks, an hour's lunch.
	lunch, ok := alerts.LunchAlong(trip, day(80))
	require.True(t, ok)
	require.InDelta(t, 80_000*(4.5/6.6667), lunch, 200) // 12:30 is 4.5 h into a day of 6 h 40
	shops := []alerts.Found{food("Start", 1000, ""), food("Lunch", 47_000, ""), food("Near lunch", 44_000, ""), food("End", 79_000, ""), food("Mid", 30_000, "")}
	water := []alerts.Found{{Name: "W1", Along: 20_000}, {Name: "W2", Along: 60_000}, {Name: "W3", Along: 5000}}
	r := alerts.Curate(trip, day(80), shops, water)
	require.Equal(t, []string{"Lunch", "Near lunch"}, names(r.FoodAtLunch))
	require.Equal(t, []string{"End", "Mid"}, names(r.FoodAtArrival), "the two nearest the arrival, lunch's aside")
	require.Equal(t, "W1", r.WaterMorning.Name, "nearest half-way to lunch")
	require.Equal(t, "W2", r.WaterAfternoon.Name)
	late := alerts.Trip{DepartureHour: 14, AverageSpeed: 15}
	r = alerts.Curate(late, day(40), shops, water)
	require.Empty(t, r.FoodAtLunch, "leaving after lunch")
	require.Nil(t, r.WaterMorning)
}

func names(fs []alerts.Found) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func TestWaterGap(t *testing.T) {
	t.Parallel()
	w := func(km ...float64) []alerts.Found {
		var out []alerts.Found
		for _, k := range km {
			out = append(out, alerts.Found{Point: at(origin, 0, k*1000), Along: k * 1000})
		}
		return out
	}
	tests := []struct {
		name string
		km   float64
		give []alerts.Found
		want int
	}{
		{"30 km day without water", 30, nil, 0},
		{"31 km day without water", 31, nil, 1},
		{"water every 25 km", 100, w(25, 50, 75), 0},
		{"a 31 km stretch between two", 60, w(10, 41), 1},
		{"31 km from the last to the end", 60, w(29), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Len(t, alerts.WaterGap(0, day(tt.km), tt.give), tt.want)
		})
	}
	a := alerts.WaterGap(2, day(60), w(10, 45))[0]
	require.Equal(t, "35 km without drinking water, from km 10 to km 45.", a.Message)
	require.Equal(t, words.Render(words.French, "alert.water_point_gap", a.Text.Args), a.Text.In(words.French))
	require.Equal(t, alerts.ActionNavigate, a.Action.Kind)
}

func TestNearbyServices(t *testing.T) {
	t.Parallel()
	six := []alerts.Stage{day(40), day(40), day(40), day(40), day(40), day(40)}
	mid := alerts.Middle(six[0])
	shop := func(metres float64, repair string) []alerts.Found {
		return []alerts.Found{{Category: "bicycle", Point: at(mid, metres, 0), Tags: map[string]string{"service:bicycle:repair": repair}}}
	}
	tests := []struct {
		name string
		got  []alerts.Alert
		want int
	}{
		{"bike shop 1.9 km from the middle", alerts.BikeShopNone(0, six, shop(1900, "yes")), 0},
		{"bike shop 2.1 km from the middle", alerts.BikeShopNone(0, six, shop(2100, "yes")), 1},
		{"a shop that does not repair", alerts.BikeShopNone(0, six, shop(100, "no")), 1},
		{"a trip of five stages is not told", alerts.BikeShopNone(0, six[:5], nil), 0},
		{"station 9.9 km from the end", alerts.StationNone(0, six[0], []alerts.Found{{Point: at(six[0].End, 9900, 0)}}), 0},
		{"station 10.1 km from either end", alerts.StationNone(0, six[0], []alerts.Found{{Point: at(six[0].End, 10_100, 0)}}), 1},
		{"pharmacy 14.9 km from the middle", alerts.HealthNone(0, six[0], []alerts.Found{{Point: at(mid, 14_900, 0)}}), 0},
		{"pharmacy 15.1 km from the middle", alerts.HealthNone(0, six[0], []alerts.Found{{Point: at(mid, 15_100, 0)}}), 1},
	}
	for _, tt := range tests {
		require.Len(t, tt.got, tt.want, tt.name)
	}
	rest := alerts.Stage{IsRestDay: true, Geometry: []geo.Point{origin}, Start: origin, End: origin}
	require.Len(t, alerts.HealthNone(0, rest, nil), 1, "health is told on rest days too")
	require.Empty(t, alerts.StationNone(0, rest, nil))
}

func TestCulturalFordsFerries(t *testing.T) {
	t.Parallel()
	place := func(name string, off float64) alerts.Found {
		return alerts.Found{Name: name, Category: "museum", Point: at(origin, off, 1000), Off: off, Along: 1000}
	}
	got := alerts.Cultural(0, day(20), []alerts.Found{place("Far", 501), place("C", 300), place("A", 10), place("B", 200), place("D", 400)})
	require.Len(t, got, 3, "three at most")
	require.Equal(t, "A", got[0].Place.Name, "nearest the route first")
	require.Equal(t, "A (museum), 10 m from the route.", got[0].Message)
	require.Equal(t, "A (musée), à 10 m de l'itinéraire.", got[0].Text.In(words.French))

	ford := func(off float64) []alerts.Found {
		return []alerts.Found{{Category: "ford", Point: at(origin, off, 500), Off: off}}
	}
	tests := []struct {
		name string
		give []alerts.Found
		w    *alerts.DayWeather
		want []alerts.Code
	}{
		{"ford at 24 m, 50 % rain", ford(24), &alerts.DayWeather{RainChance: 50}, []alerts.Code{alerts.CodeFordCrossingWet}},
		{"ford at 24 m, 49 % rain", ford(24), &alerts.DayWeather{RainChance: 49}, []alerts.Code{alerts.CodeFordCrossingDry}},
		{"ford at 26 m", ford(26), &alerts.DayWeather{RainChance: 90}, nil},
		{"ford without a forecast", ford(5), nil, []alerts.Code{alerts.CodeFordCrossingDry}},
	}
	for _, tt := range tests {
		require.ElementsMatch(t, tt.want, codes(alerts.Fords(0, day(20), tt.give, tt.w)), tt.name)
	}
	seen := map[int64]bool{}
	ferry := []alerts.Ferry{{WayID: 5, Name: "Bac de Saint-Romain", At: origin}}
	require.Len(t, alerts.Ferries(0, day(20), ferry, seen), 1)
	require.Empty(t, alerts.Ferries(1, day(20), ferry, seen), "once per ferry over the trip")
}

func TestCalendarBordersWeather(t *testing.T) {
	t.Parallel()
	sunday := time.Date(2027, 6, 6, 0, 0, 0, 0, time.UTC)
	monday := sunday.AddDate(0, 0, 1)
	july14 := time.Date(2027, 7, 14, 0, 0, 0, 0, time.UTC)
	require.Equal(t, []alerts.Code{alerts.CodeCalendarSunday}, codes(alerts.Calendar(0, &sunday, nil)))
	require.Empty(t, alerts.Calendar(0, &monday, nil))
	require.Equal(t, []alerts.Code{alerts.CodeCalendarPublicHoliday}, codes(alerts.Calendar(0, &sunday, &alerts.Holiday{Country: "FR", Name: "Pentecôte"})),
		"the holiday takes precedence over the Sunday")
	h := alerts.Calendar(3, &july14, &alerts.Holiday{Country: "FR", Name: "Fête Nationale"})[0]
	require.Equal(t, "2027-07-14 is a public holiday (France: Fête Nationale): shops and services may be closed.", h.Message)
	require.Equal(t, alerts.ActionDismiss, h.Action.Kind)
	require.Empty(t, alerts.Calendar(0, nil, nil), "no date, no claim")

	stages := []alerts.Stage{day(50), day(50), day(50), day(50)}
	b := alerts.Borders(stages, []string{"FR", "FR", "CH", "FR", "CH"})
	require.Equal(t, []int{1, 2}, []int{b[0].StageIndex, b[1].StageIndex}, "FR→CH once, CH→FR once")
	require.Equal(t, "Passage de frontière (France → Suisse) ; prenez vos papiers.", b[0].Text.In(words.French))

	w := func(speed float64, rel string, comfort int) *alerts.DayWeather {
		return &alerts.DayWeather{WindSpeed: speed, Relative: rel, Comfort: comfort}
	}
	require.Len(t, alerts.Wind([]*alerts.DayWeather{w(25, "headwind", 80), w(30, "headwind", 80), w(40, "headwind", 80), w(10, "headwind", 80), nil, w(30, "tailwind", 80)}), 1,
		"3 of the 5 stages with a forecast: 60 %")
	require.Empty(t, alerts.Wind([]*alerts.DayWeather{w(25, "headwind", 80), w(30, "headwind", 80), w(10, "headwind", 80), w(40, "crosswind", 80)}), "2 of 4")
	require.Empty(t, alerts.Wind([]*alerts.DayWeather{w(25, "headwind", 80), w(24, "headwind", 80)}), "half is not enough")
	require.Empty(t, alerts.Wind(nil), "no forecast, no claim")
	c := alerts.Comfort([]*alerts.DayWeather{w(0, "", 40), w(0, "", 39), w(0, "", 20)})
	require.Len(t, c, 1)
	require.Equal(t, alerts.TripLevel, c[0].StageIndex)
	require.Equal(t, "Poor riding conditions forecast on 2 day(s); the worst is day 3 (comfort 20 out of 100).", c[0].Message)
	require.Empty(t, alerts.Comfort([]*alerts.DayWeather{w(0, "", 40)}))
	require.Len(t, alerts.Closure(0, day(20), &monday, 2, 2), 1)
	require.Empty(t, alerts.Closure(0, day(20), &monday, 2, 1))
	require.Empty(t, alerts.Closure(0, day(20), nil, 2, 2), "no date, no claim")
}
