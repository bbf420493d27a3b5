package planner_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/modules/route/corridor"
	"cairn.dev/cairn/modules/route/countries"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/holidays"
	"cairn.dev/cairn/modules/route/osmfixture"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
)

// rideRoute is a ride from Lyon over the border to Geneva, then along the
// lake to Montreux: about 200 km, a point every 250 m, swaying 30 m either
// side so that decimation keeps a point every 500 m (a day is cut there).
func rideRoute() []geo.Point {
	ways := []geo.Point{{Lat: 45.7578, Lon: 4.832}, {Lat: 46.108, Lon: 5.826}, {Lat: 46.2044, Lon: 6.1432},
		{Lat: 46.5197, Lon: 6.6323}, {Lat: 46.4312, Lon: 6.9107}}
	var out []geo.Point
	for i := 1; i < len(ways); i++ {
		a, b := ways[i-1], ways[i]
		n := int(geo.Haversine(a, b) / 250)
		for k := range n {
			f := float64(k) / float64(n)
			sway := 30.0
			if len(out)%2 == 0 {
				sway = -30
			}
			out = append(out, osmfixture.Offset(geo.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon), Ele: 300}, sway, 0))
		}
	}
	return append(out, geo.Point{Lat: ways[len(ways)-1].Lat, Lon: ways[len(ways)-1].Lon, Ele: 300})
}

// forecastServer answers in Open-Meteo's shape: rain on the first day
// (70 %), a hot, wet, windy third day, a 30 km/h wind from the
// east-north-east (a headwind on this route) every day.
func forecastServer(t testing.TB, first time.Time) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		date := r.URL.Query().Get("start_date")
		d, err := time.Parse("2006-01-02", date)
		require.NoError(t, err)
		rain, tmax, wind, hum := 10.0, 24.0, 30.0, 60.0
		switch int(d.Sub(first).Hours() / 24) {
		case 0:
			rain = 70
		case 2:
			rain, tmax, wind, hum = 60, 40, 45, 100
		}
		fmt.Fprintf(w, `{"daily":{"time":["%s"],"weather_code":[61],"temperature_2m_max":[%g],"temperature_2m_min":[14],`+
			`"precipitation_probability_max":[%g],"wind_speed_10m_max":[%g],"wind_direction_10m_dominant":[60],"relative_humidity_2m_mean":[%g]}}`,
			date, tmax, rain, wind, hum)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1/forecast"
}

// eventsServer serves an iCalendar feed with one festival at p on day.
func eventsServer(t testing.TB, p geo.Point, day time.Time) string {
	feed := "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20260101T000000Z\r\n" +
		"DTSTART;VALUE=DATE:" + day.Format("20060102") + "\r\nSUMMARY:Fête au village\r\n" +
		fmt.Sprintf("GEO:%.5f;%.5f\r\n", p.Lat, p.Lon) + "END:VEVENT\r\nEND:VCALENDAR\r\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/calendar")
		fmt.Fprint(w, feed)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/events.ics"
}

// nextBastilleEve is the 13 July at least three days ahead: a trip from
// there has 14 July, France's national day, as its second day.
func nextBastilleEve() time.Time {
	now := time.Now().UTC()
	d := time.Date(now.Year(), time.July, 13, 0, 0, 0, 0, time.UTC)
	if d.Before(now.AddDate(0, 0, 3)) {
		d = d.AddDate(1, 0, 0)
	}
	return d
}

// dayLines reads the days' lines of a trip.
func dayLines(t *testing.T, e env, id string) [][]geo.Point {
	res := e.a.Do(t, "GET", "/trips/"+id+"/route", e.token, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	var out [][]geo.Point
	for _, s := range res.JSON(t)["stages"].([]any) {
		var line []geo.Point
		for _, p := range s.(map[string]any)["geometry"].([]any) {
			q := p.(map[string]any)
			line = append(line, geo.Point{Lat: q["lat"].(float64), Lon: q["lon"].(float64)})
		}
		out = append(out, line)
	}
	return out
}

// fixtureExtract places, on the days of lines, what each rule must find
// where the test expects it (see TestComputations).
func fixtureExtract(t *testing.T, lines [][]geo.Point) []byte {
	var e osmfixture.Extract
	tag := func(k, v string) osmfixture.Tag { return osmfixture.Tag{k, v} }
	at := func(day int, km float64) geo.Point { return corridor.NewLine(lines[day], 0).At(km * 1000) }
	length := func(day int) float64 { return corridor.NewLine(lines[day], 0).Length() / 1000 }
	stretch := func(day int, from, to float64) []geo.Point {
		var pts []geo.Point
		for km := from; km <= to+1e-9; km += 0.05 {
			pts = append(pts, osmfixture.Offset(at(day, km), 2, 0))
		}
		return pts
	}
	mid := func(day int) geo.Point { return at(day, length(day)/2) }
	for day := range lines {
		// the land itself: an extract holds nodes everywhere it covers
		for km := 0.0; km <= length(day); km += 0.5 {
			e.Place(osmfixture.Offset(at(day, km), 30, 0))
		}
		// water every 8 km, but none on day 3
		if day != 2 {
			for km := 4.0; km < length(day); km += 8 {
				e.Place(osmfixture.Offset(at(day, km), 100, 0), tag("amenity", "drinking_water"))
			}
		}
		// food on every day but the first; on the second, all of it closed in July
		switch day {
		case 0:
		case 1:
			e.Place(osmfixture.Offset(at(day, 10), 150, 0), tag("shop", "bakery"), tag("name", "Boulangerie"), tag("opening_hours", "Jan Mo-Su 07:00-19:00"))
			e.Place(osmfixture.Offset(at(day, 30), 150, 0), tag("shop", "supermarket"), tag("name", "Supérette"), tag("opening_hours", "Jan Mo-Su 08:00-20:00"))
		default:
			e.Place(osmfixture.Offset(at(day, 12), 150, 0), tag("shop", "bakery"), tag("name", "Boulangerie"))
			e.Place(osmfixture.Offset(at(day, length(day)-2), 150, 0), tag("amenity", "cafe"), tag("name", "Café"))
		}
		if day != 1 {
			e.Place(osmfixture.Offset(mid(day), 300, 0), tag("shop", "bicycle"), tag("name", "Cycles"))
		}
		if day != 4 {
			e.Place(osmfixture.Offset(mid(day), 500, 0), tag("amenity", "pharmacy"), tag("name", "Pharmacie"))
		}
		if day != 4 {
			e.Place(osmfixture.Offset(at(day, length(day)), 800, 0), tag("tourism", "hotel"), tag("name", fmt.Sprintf("Hôtel %d", day+1)))
		} else {
			e.Place(osmfixture.Offset(at(day, length(day)), 800, 0), tag("tourism", "camp_site"), tag("name", "Camping du printemps"), tag("opening_hours", "Apr-Jun"))
		}
	}
	e.Place(osmfixture.Offset(at(2, length(2)), 1500, 0), tag("amenity", "pharmacy"), tag("name", "Pharmacie du repos"))
	// stations at the start, and at the ends of days 1, 2 and 5: none within 10 km of day 4
	for _, p := range []geo.Point{at(0, 0), at(0, length(0)), at(1, length(1)), at(4, length(4))} {
		e.Place(osmfixture.Offset(p, 1000, 0), tag("railway", "station"), tag("name", "Gare"))
	}
	// day 1: a primary road, a gravel track, a ford, a museum, a ferry
	e.Line(stretch(0, 5, 5.7), tag("highway", "primary"), tag("maxspeed", "80"))
	e.Line(stretch(0, 10, 10.7), tag("highway", "track"), tag("surface", "gravel"))
	e.Place(at(0, 15), tag("ford", "yes"))
	e.Place(osmfixture.Offset(at(0, 20), 200, 0), tag("tourism", "museum"), tag("name", "Musée de la soie"))
	e.Line([]geo.Point{osmfixture.Offset(at(0, 25), -500, 0), osmfixture.Offset(at(0, 25), 500, 0)}, tag("route", "ferry"), tag("name", "Bac du Rhône"))
	// day 2: a fast secondary road; day 4: a slow one; day 5: a ford, dry
	e.Line(stretch(1, 5, 5.7), tag("highway", "secondary"), tag("maxspeed", "70"))
	e.Line(stretch(3, 5, 5.7), tag("highway", "secondary"))
	e.Place(at(4, 10), tag("ford", "yes"))
	// a hotel 25 km into day 1, where a shorter first day ends
	e.Place(osmfixture.Offset(at(0, 25), 600, 0), tag("tourism", "hotel"), tag("name", "Hôtel de mi-chemin"))
	var b bytes.Buffer
	w, err := osmfixture.NewPBF(&b)
	require.NoError(t, err)
	require.NoError(t, e.Write(w))
	return b.Bytes()
}

// dayCodes reads every day's alert codes, and the trip's.
func dayCodes(t *testing.T, e env, id string) ([][]string, map[string]any, []map[string]any) {
	detail := e.a.Do(t, "GET", "/trips/"+id+"/detail", e.token, nil)
	require.Equal(t, http.StatusOK, detail.Status, string(detail.Body))
	trip := detail.JSON(t)
	var codes [][]string
	var stages []map[string]any
	for _, d := range trip["days"].([]any) {
		sid := d.(map[string]any)["id"].(string)
		res := e.a.Do(t, "GET", "/trips/"+id+"/stages/"+sid+"/detail", e.token, nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		st := res.JSON(t)
		stages = append(stages, st)
		var cs []string
		for _, a := range st["alertDetails"].([]any) {
			cs = append(cs, a.(map[string]any)["code"].(string))
		}
		codes = append(codes, cs)
	}
	return codes, trip, stages
}

func importExtract(t *testing.T, a *plannertest.App, data []byte) {
	_, err := poi.Importer{Name: "fixture"}.Import(context.Background(), poi.NewStore(a.DB), bytes.NewReader(data), poi.FormatPBF)
	require.NoError(t, err)
}

// TestComputations: a dated five-day ride from Lyon to Montreux over the
// Swiss border, its map data imported, a forecast and an events feed
// served locally; the seventeen computations are done, and each alert rule
// of pipeline.md §8 speaks on the day its fixture is on, and nowhere else.
func TestComputations(t *testing.T) {
	t.Parallel()
	first := nextBastilleEve()
	route := rideRoute()
	lastEnd := route[len(route)-1]
	weatherURL := forecastServer(t, first)
	a := plannertest.New(t, func(_ testing.TB, c *config.Config) {
		*c = c.With("weather_url", weatherURL).With("events_url", "")
	})
	e := newEnv(t, a)
	_ = lastEnd

	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: "Lyon–Montreux", Points: route}))
	op, _ := a.Server.Registry.Lookup("trips.upload")
	up := a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Key: key(), Header: map[string]string{"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.5"},
		Args:  map[string]any{"startDate": first.Format("2006-01-02"), "endDate": first.AddDate(0, 0, 4).Format("2006-01-02")},
		Files: map[string]apptest.File{"gpxFile": {Name: "ride.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}})
	require.Equal(t, http.StatusAccepted, up.Status, string(up.Raw))
	require.Equal(t, "fr", up.Header.Get("Content-Language"), "the answer says its language")
	id := up.Body["id"].(string)
	a.WaitSettled(t, e.token, id)

	// Before any map data: the map computations say so, and find nothing.
	_, before, _ := dayCodes(t, e, id)
	require.Equal(t, "fr", before["settings"].(map[string]any)["locale"], "created with Accept-Language: fr")
	require.Equal(t, "no_map_data", before["coverage"].(map[string]any)["pois"])

	lines := dayLines(t, e, id)
	require.Len(t, lines, 5)
	importExtract(t, a, fixtureExtract(t, lines))

	// A rest day after the third: six stages, everything analysed again.
	_, trip, _ := dayCodes(t, e, id)
	days := trip["days"].([]any)
	rest := a.Do(t, "POST", "/trips/"+id+"/stages/"+days[2].(map[string]any)["id"].(string)+"/rest-day", e.token, nil,
		"If-Match", fmt.Sprint(trip["version"]))
	require.Equal(t, http.StatusAccepted, rest.Status, string(rest.Body))
	state := a.WaitSettled(t, e.token, id)
	for name, st := range state["computationStatus"].(map[string]any) {
		require.Equal(t, "done", st, name)
	}
	require.Len(t, state["computationStatus"], 17, "the seventeen computations")

	codes, trip, stages := dayCodes(t, e, id)
	require.Len(t, codes, 6)
	require.Equal(t, "done", trip["weatherStatus"])
	require.NotContains(t, trip, "outOfZone", "the whole ride is in the imported area")

	// Where each rule must speak (0-based stages; 3 is the rest day).
	want := map[string][]int{
		"traffic_main_road":              {0},
		"surface_rough":                  {0},
		"ford_crossing_wet":              {0},
		"ford_crossing_dry":              {5},
		"cultural_poi_suggestion":        {0},
		"ferry_crossing":                 {0},
		"resupply_none_on_stage":         {0},
		"resupply_closed_at_passage":     {1},
		"traffic_secondary_road_fast":    {1},
		"traffic_secondary_road_slow":    {4},
		"bike_shop_none_nearby":          {1},
		"water_point_gap":                {2},
		"railway_station_none_nearby":    {4},
		"health_service_none_nearby":     {5},
		"accommodation_seasonal_closure": {5},
		"calendar_public_holiday":        {1},
	}
	// The date rules and the border, from the calendar and the borders.
	cps := []geo.Point{lines[0][0]}
	for _, l := range lines {
		cps = append(cps, l[len(l)-1])
	}
	var country []string
	for _, p := range cps {
		c, err := countries.Embedded().At(p)
		require.NoError(t, err)
		country = append(country, c)
	}
	require.Contains(t, country, "CH", "the ride crosses into Switzerland")
	for k := 1; k < len(country); k++ {
		if country[k] != country[k-1] {
			stage := k - 1
			if stage >= 3 {
				stage++ // after the rest day
			}
			want["border_crossing"] = append(want["border_crossing"], stage)
		}
	}
	for i := range codes {
		date := first.AddDate(0, 0, i)
		_, holiday := holidays.On("FR", date)
		if ch, ok := holidays.On("CH", date); ok && i >= 3 {
			_, holiday = ch, true
		}
		if date.Weekday() == time.Sunday && !holiday {
			want["calendar_sunday"] = append(want["calendar_sunday"], i)
		}
	}
	for code, where := range want {
		var got []int
		for i, cs := range codes {
			if slices.Contains(cs, code) {
				got = append(got, i)
			}
		}
		require.Equal(t, where, got, "%s: on the days its fixture is on, and nowhere else", code)
	}
	for i, cs := range codes {
		for _, c := range cs {
			_, expected := want[c]
			require.True(t, expected || c == "elevation_gain" || c == "steep_gradient" || c == "continuity_gap_warning",
				"day %d: %s has no fixture", i+1, c)
		}
	}
	var tripCodes []string
	for _, x := range trip["alerts"].([]any) {
		tripCodes = append(tripCodes, x.(map[string]any)["code"].(string))
	}
	require.ElementsMatch(t, []string{"wind_headwind", "comfort_poor_conditions"}, tripCodes)

	// In French, as the trip was created.
	msg := stages[1]["alertDetails"].([]any)[0].(map[string]any)["message"].(string)
	require.Contains(t, []string{"Aucun réparateur de vélos à moins de 2 km de la mi-étape.", "Les 2 endroits où acheter à manger sur le parcours sont tous fermés à votre passage."}, msg, "in French")
	require.Equal(t, "Pluie", stages[0]["weather"].(map[string]any)["description"])
	res := a.Do(t, "GET", "/trips/"+id+"/stages/"+stages[1]["id"].(string)+"/detail", e.token, nil)
	require.Equal(t, "fr", res.Header.Get("Content-Language"), "a day's read is in the trip's language")
	// The resupply of a day with food on it, and the closed camp site.
	require.NotEmpty(t, stages[2]["resupply"].(map[string]any)["foodAtArrival"])
	require.Equal(t, true, stages[5]["accommodations"].([]any)[0].(map[string]any)["possibleClosed"])
	// Ends are named.
	require.NotEmpty(t, stages[0]["endLabel"])
}

// TestComputationsWithoutDate: the same ride without a start date makes no
// date claim: no forecast, holiday, Sunday, event or seasonal closure, and
// the trip says why.
func TestComputationsWithoutDate(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t, func(_ testing.TB, c *config.Config) { *c = c.With("weather_url", forecastServer(t, nextBastilleEve())) })
	e := newEnv(t, a)
	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: "Undated", Points: rideRoute()}))
	op, _ := a.Server.Registry.Lookup("trips.upload")
	up := a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Key: key(), Args: map[string]any{"maxDistancePerDay": 45},
		Files: map[string]apptest.File{"gpxFile": {Name: "ride.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}})
	require.Equal(t, http.StatusAccepted, up.Status, string(up.Raw))
	id := up.Body["id"].(string)
	a.WaitSettled(t, e.token, id)
	lines := dayLines(t, e, id)
	importExtract(t, a, fixtureExtract(t, lines))
	res := a.Do(t, "POST", "/trips/"+id+"/analyze", e.token, nil)
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	state := a.WaitSettled(t, e.token, id)
	for name, st := range state["computationStatus"].(map[string]any) {
		require.Equal(t, "done", st, name)
	}
	codes, trip, stages := dayCodes(t, e, id)
	for i, cs := range codes {
		for _, c := range []string{"calendar_public_holiday", "calendar_sunday", "sunset_arrival_after_twilight",
			"accommodation_seasonal_closure", "resupply_closed_at_passage", "ford_crossing_wet"} {
			require.NotContains(t, cs, c, "day %d claims %s without a date", i+1, c)
		}
		require.NotContains(t, stages[i], "weather")
	}
	coverage := trip["coverage"].(map[string]any)
	for _, c := range []string{"weather", "calendar", "events"} {
		require.Contains(t, []any{"no_date", "not_configured"}, coverage[c], c)
	}
	require.Equal(t, "no_date", coverage["weather"])
	require.Equal(t, "en", res.Header.Get("Content-Language"))
}

// TestComputationsOutOfZone: a trip outside the imported area says, per
// computation, that there is no data there, and claims no absence.
func TestComputationsOutOfZone(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	importExtract(t, a, fixtureExtract(t, [][]geo.Point{rideRoute()[:200], rideRoute()[200:400], rideRoute()[400:600], rideRoute()[600:700], rideRoute()[700:]}))
	id, _, _ := e.days(t, 120, nil) // along the equator, far from the imported extract
	state := a.WaitSettled(t, e.token, id)
	require.Equal(t, "done", state["computationStatus"].(map[string]any)["pois"])
	codes, trip, _ := dayCodes(t, e, id)
	require.Equal(t, true, trip["outOfZone"])
	coverage := trip["coverage"].(map[string]any)
	for _, c := range []string{"pois", "terrain", "bike_shops", "water_points", "health_services", "cultural_pois", "railway_stations", "ferries", "fords"} {
		require.Equal(t, "out_of_zone", coverage[c], "%s: %v", c, coverage)
	}
	require.Equal(t, "not_configured", coverage["weather"], "no weather_url")
	for i, cs := range codes {
		for _, c := range []string{"water_point_gap", "health_service_none_nearby", "railway_station_none_nearby", "resupply_none_on_stage"} {
			require.NotContains(t, cs, c, "day %d claims an absence where there is no data", i+1)
		}
	}
}

// TestDistanceEditRefreshesAccommodations: shortening the first day to
// 25 km scans again around its new end.
func TestDistanceEditRefreshesAccommodations(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: "Edit", Points: rideRoute()}))
	op, _ := a.Server.Registry.Lookup("trips.upload")
	up := a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Key: key(),
		Args:  map[string]any{"startDate": day(30), "endDate": day(34)},
		Files: map[string]apptest.File{"gpxFile": {Name: "ride.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}})
	require.Equal(t, http.StatusAccepted, up.Status, string(up.Raw))
	id := up.Body["id"].(string)
	a.WaitSettled(t, e.token, id)
	importExtract(t, a, fixtureExtract(t, dayLines(t, e, id)))
	require.Equal(t, http.StatusAccepted, a.Do(t, "POST", "/trips/"+id+"/analyze", e.token, nil).Status)
	a.WaitSettled(t, e.token, id)
	_, trip, stages := dayCodes(t, e, id)
	first := stages[0]["accommodations"].([]any)
	require.Equal(t, "Hôtel 1", first[0].(map[string]any)["name"])

	res := a.Do(t, "PATCH", "/trips/"+id+"/stages/"+stages[0]["id"].(string), e.token, map[string]any{"distance": 25.2},
		"If-Match", fmt.Sprint(trip["version"]), "Content-Type", "application/merge-patch+json")
	require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
	a.WaitSettled(t, e.token, id)
	_, _, stages = dayCodes(t, e, id)
	now := stages[0]["accommodations"].([]any)
	require.NotEmpty(t, now)
	c := now[0].(map[string]any)
	require.Equal(t, "Hôtel de mi-chemin", c["name"], "the candidates are those of the new end: %v %v", stages[0]["distance"], now)
	require.Less(t, c["distanceToEndPoint"].(float64), 1.0)
	_ = operations.HeaderIdempotencyKey
}
