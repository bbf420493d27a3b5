package trips

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/corridor"
	"cairn.dev/cairn/modules/route/events"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/holidays"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/route/weather"
	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/storage"
)

// The enrichments beyond the terrain and the accommodations (pipeline.md §6).
const (
	ComputePOIs      = "pois"
	ComputeWeather   = "weather"
	ComputeWind      = "wind"
	ComputeFords     = "fords"
	ComputeCalendar  = "calendar"
	ComputeBikeShops = "bike_shops"
	ComputeWater     = "water_points"
	ComputeHealth    = "health_services"
	ComputeCultural  = "cultural_pois"
	ComputeStations  = "railway_stations"
	ComputeBorders   = "border_crossing"
	ComputeFerries   = "ferries"
	ComputeEvents    = "events"
)

// Why a computation could not look everywhere (Trip.Coverage, Stage.Coverage).
const (
	CoverageOutOfZone      = "out_of_zone"      // the route leaves the area the local data covers
	CoverageNoMapData      = "no_map_data"      // no local data was ever imported
	CoverageNotConfigured  = "not_configured"   // the computation's provider is not configured
	CoverageNoDate         = "no_date"          // the trip has no start date: no date claim is made
	CoverageBeyondForecast = "beyond_forecast"  // some days are beyond the forecast's horizon
	CoverageUnknownHoliday = "unknown_holidays" // a country crossed has no known calendar
)

// MapData is the local geographic store the place and road rules read
// (*poi.Store).
type MapData interface {
	Along(ctx context.Context, line *corridor.Line, halfWidth float64, categories []string) ([]poi.Found, error)
	Nearest(ctx context.Context, p geo.Point, radius float64, categories []string, accept func(poi.POI) bool) (poi.Found, bool, error)
	WaysNear(ctx context.Context, line []geo.Point, halfWidth float64, kind string) ([]poi.WayChunk, error)
	Covers(ctx context.Context, line []geo.Point) (poi.Coverage, error)
}

// Forecaster gives one day's forecast at a point (*weather.Client).
type Forecaster interface {
	Forecast(ctx context.Context, p geo.Point, day time.Time) (weather.Forecast, error)
}

// EventFeed gives the events near a point on a day (*events.Feed).
type EventFeed interface {
	Near(ctx context.Context, p geo.Point, radius float64, day time.Time) ([]events.Event, error)
}

// Borders names the country at a point (*countries.Borders).
type Borders interface {
	At(p geo.Point) (string, error)
}

// EventsRadius is how far from a day's end an event is listed (§8), and
// MaxEvents how many are kept per day.
const (
	EventsRadius = 20_000.0
	MaxEvents    = 10
)

// roots are the computations of plan whose parent is not in it: the ones
// to dispatch, the others following when their parent completes.
func roots(plan []string) []string {
	var out []string
	for _, n := range plan {
		if !slices.Contains(plan, parentOf(n)) {
			out = append(out, n)
		}
	}
	return out
}

// outcome is what one enrichment writes, in the transaction that marks it
// done: its group of alerts on each day and on the trip, the day columns
// it owns, and why it could not look everywhere.
type outcome struct {
	days        [][]alerts.Alert // per day; nil writes an empty group
	trip        []alerts.Alert   // the trip's own alerts
	tripGroup   bool             // write the trip's group (wind, comfort)
	weather     []*Weather       // written when non-nil
	resupply    []*Resupply      // written when non-nil
	events      []EventList      // written when non-nil
	coverage    string           // "" clears
	dayCoverage []string         // per day; nil clears
	found       progress.Event
}

// run is one enrichment's view of the trip.
type run struct {
	p      *Pipeline
	trip   *Trip
	stages []Stage
	in     alerts.Trip
	ss     []alerts.Stage
	zone   []bool // per day: the local data covers it (map computations)
	noData bool   // no local data at all
}

// date is day i's date, or nil without a start date.
func (r *run) date(i int) *time.Time {
	if r.in.StartDate == nil {
		return nil
	}
	d := r.in.StartDate.AddDate(0, 0, i)
	return &d
}

// covered finds, once per run, which days the local data covers.
func (r *run) covered(ctx context.Context) error {
	if r.zone != nil {
		return nil
	}
	r.zone = make([]bool, len(r.stages))
	if r.p.data == nil {
		r.noData = true
		return nil
	}
	for i, s := range r.stages {
		c, err := r.p.data.Covers(ctx, s.Geometry)
		if err != nil {
			return err
		}
		r.noData = !c.Imported
		r.zone[i] = c.Covered
	}
	return nil
}

// mapCoverage is a map computation's coverage: per day, and for the trip.
func (r *run) mapCoverage() (string, []string) {
	if r.noData {
		return CoverageNoMapData, nil
	}
	var days []string
	trip := ""
	for i, ok := range r.zone {
		if !ok {
			if days == nil {
				days = make([]string, len(r.zone))
			}
			days[i], trip = CoverageOutOfZone, CoverageOutOfZone
		}
	}
	return trip, days
}

func (r *run) line(i int, span float64) *corridor.Line {
	return corridor.NewLine(r.stages[i].Geometry, span)
}

// along finds the places of categories within halfWidth of day i's line.
func (r *run) along(ctx context.Context, i int, halfWidth float64, categories []string) ([]alerts.Found, error) {
	found, err := r.p.data.Along(ctx, r.line(i, halfWidth), halfWidth, categories)
	return foundOf(found), err
}

// nearest finds the place of categories nearest p within radius that
// accept takes (any, when nil): none or one. The rules that want the
// nearest place read it so, not every place of a wide circle.
func (r *run) nearest(ctx context.Context, p geo.Point, radius float64, categories []string, accept func(alerts.Found) bool) ([]alerts.Found, error) {
	var take func(poi.POI) bool
	if accept != nil {
		take = func(c poi.POI) bool { return accept(foundOf([]poi.Found{{POI: c}})[0]) }
	}
	f, ok, err := r.p.data.Nearest(ctx, p, radius, categories, take)
	if err != nil || !ok {
		return nil, err
	}
	return foundOf([]poi.Found{f}), nil
}

func foundOf(found []poi.Found) []alerts.Found {
	out := make([]alerts.Found, len(found))
	for i, f := range found {
		out[i] = alerts.Found{Name: f.Name, Category: f.Category, Point: geo.Point{Lat: f.Lat, Lon: f.Lon},
			Off: f.Off, Along: f.Along, Tags: f.Tags, OSMType: f.OSMType, OSMID: f.OSMID}
	}
	return out
}

// enrich runs one enrichment: compute reads what it needs and says what
// to write, and its outcome is committed with the computation done.
func (p *Pipeline) enrich(ctx context.Context, job Job, compute func(ctx context.Context, r *run) (outcome, error)) error {
	tr, stages, err := p.store.TripAndDays(ctx, job.TripID)
	if err != nil {
		return err
	}
	r := &run{p: p, trip: tr, stages: stages, in: alertTrip(tr), ss: alertStages(stages)}
	o, err := compute(ctx, r)
	if err != nil {
		return err
	}
	if err := p.commit(ctx, job, func(ctx context.Context) error { return p.store.saveOutcome(ctx, tr.ID, job.Name, stages, o) }); err != nil {
		return err
	}
	n := len(o.trip)
	for _, d := range o.days {
		n += len(d)
	}
	e := o.found
	e.Data = map[string]any{"alertCount": n, "stageCount": len(stages)}
	p.stepCompleted(ctx, job.TripID, e)
	return nil
}

// alertTrip and alertStages are what the rules read of the trip.
func alertTrip(t *Trip) alerts.Trip {
	in := alerts.Trip{DepartureHour: t.DepartureHour, AverageSpeed: t.AverageSpeed, EbikeMode: t.EbikeMode}
	if t.StartDate != nil {
		if d, err := time.Parse(dateLayout, *t.StartDate); err == nil {
			in.StartDate = &d
		}
	}
	return in
}

func alertStages(stages []Stage) []alerts.Stage {
	ss := make([]alerts.Stage, len(stages))
	for i, s := range stages {
		ss[i] = alerts.Stage{Geometry: s.Geometry, Distance: s.Distance, Ascent: s.Ascent, Descent: s.Descent,
			IsRestDay: s.IsRestDay, Start: s.StartPoint.point(), End: s.EndPoint.point()}
	}
	return ss
}

// saveOutcome writes what enrichment name found, each day's other groups
// and columns untouched (read again here, under the trip's lock).
func (s *Store) saveOutcome(ctx context.Context, tripID, name string, stages []Stage, o outcome) error {
	db := storage.Conn(ctx, s.db)
	type dayRow struct {
		ID       string
		Alerts   AlertGroups
		Coverage Coverage
	}
	rows, err := s.reads.dayOutcomes.Query(ctx, tripID)
	if err != nil {
		return err
	}
	byID := map[string]dayRow{}
	for rows.Next() {
		var r dayRow
		if err := rows.Scan(&r.ID, &r.Alerts, &r.Coverage); err != nil {
			_ = rows.Close()
			return err
		}
		byID[r.ID] = r
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	shown := false // whether the digest's days read otherwise after this outcome
	days := make([]dayWrite, len(stages))
	for i, st := range stages {
		row := byID[st.ID]
		groups := AlertGroups{}
		for k, v := range row.Alerts {
			groups[k] = v
		}
		list := []AlertRecord{}
		if i < len(o.days) {
			for _, a := range o.days[i] {
				list = append(list, recordOf(a))
			}
		}
		// The digest counts a day's alerts by severity: an outcome that
		// leaves every day's count as it was leaves the kept days true.
		if row.Alerts == nil || severities(row.Alerts[name]) != severities(list) {
			shown = true
		}
		groups[name] = list
		cov := Coverage{}
		for k, v := range row.Coverage {
			cov[k] = v
		}
		delete(cov, name)
		if i < len(o.dayCoverage) && o.dayCoverage[i] != "" {
			cov[name] = o.dayCoverage[i]
		}
		if len(cov) == 0 {
			cov = nil
		}
		d := dayWrite{id: st.ID, alerts: groups, coverage: cov}
		if o.weather != nil {
			d.weather = o.weather[i]
		}
		if o.resupply != nil {
			d.resupply = o.resupply[i]
		}
		if o.events != nil {
			d.events = o.events[i]
		}
		days[i] = d
	}
	if err := s.writeDays(ctx, o, days); err != nil {
		return err
	}
	var tr struct {
		Alerts   AlertGroups `bun:"alerts"`
		Coverage Coverage    `bun:"coverage"`
	}
	if err := db.NewSelect().Table("trips").Column("alerts", "coverage").Where("id = ?", tripID).Scan(ctx, &tr.Alerts, &tr.Coverage); err != nil {
		return err
	}
	cov := Coverage{}
	for k, v := range tr.Coverage {
		cov[k] = v
	}
	delete(cov, name)
	if o.coverage != "" {
		cov[name] = o.coverage
	}
	bump := bumpKeeping
	if shown {
		bump = bumpRevision
	}
	q := db.NewUpdate().Table("trips").Set("coverage = ?", cov).Set(bump).Where("id = ?", tripID)
	if o.coverage == CoverageOutOfZone {
		q = q.Set("out_of_zone = ?", true)
	}
	if o.tripGroup {
		groups := AlertGroups{}
		for k, v := range tr.Alerts {
			groups[k] = v
		}
		list := []AlertRecord{}
		for _, a := range o.trip {
			list = append(list, recordOf(a))
		}
		groups[name] = list
		q = q.Set("alerts = ?", groups)
	}
	if _, err := q.Exec(ctx); err != nil {
		return err
	}
	s.changed(ctx, tripID)
	return nil
}

// dayWrite is what an outcome writes on one day.
type dayWrite struct {
	id       string
	alerts   AlertGroups
	coverage Coverage
	weather  *Weather
	resupply *Resupply
	events   EventList
}

// writeDays writes an outcome's days, each day's data of another kind than
// the outcome's kept: in one statement on PostgreSQL, where a statement is
// a round trip made under the trip's row lock, which the trip's edits and
// its other enrichments wait for; a statement a day on SQLite, where a
// statement is a call.
func (s *Store) writeDays(ctx context.Context, o outcome, days []dayWrite) error {
	if s.reads.saveDays == nil {
		for _, d := range days {
			if _, err := s.reads.saveDay.Exec(ctx, d.alerts, d.coverage, o.weather != nil, d.weather,
				o.resupply != nil, d.resupply, o.events != nil, d.events, d.id); err != nil {
				return err
			}
		}
		return nil
	}
	ids := make([]string, len(days))
	var cols [5][]*string // alerts, coverage, weather, resupply, events
	for i, d := range days {
		ids[i] = d.id
		for c, v := range []driver.Valuer{d.alerts, d.coverage, d.weather, d.resupply, d.events} {
			text, err := textOf(v)
			if err != nil {
				return err
			}
			cols[c] = append(cols[c], text)
		}
	}
	_, err := s.reads.saveDays.Exec(ctx, o.weather != nil, o.resupply != nil, o.events != nil,
		ids, cols[0], cols[1], cols[2], cols[3], cols[4])
	return err
}

// textOf is the text a column's value is stored as, nil for NULL.
func textOf(v driver.Valuer) (*string, error) {
	value, err := v.Value()
	if err != nil || value == nil {
		return nil, err
	}
	text, ok := value.(string)
	if !ok {
		return nil, fmt.Errorf("trips: a day's column value is %T, not text", value)
	}
	return &text, nil
}

// perDay runs rule on every day the local data covers, after reading the
// places it needs (along it, or the nearest of a kind around a point).
func (r *run) perDay(ctx context.Context, found progress.Event, read func(ctx context.Context, i int) ([]alerts.Found, error),
	rule func(i int, places []alerts.Found) []alerts.Alert) (outcome, error) {
	if err := r.covered(ctx); err != nil {
		return outcome{}, err
	}
	o := outcome{days: make([][]alerts.Alert, len(r.stages)), found: found}
	o.coverage, o.dayCoverage = r.mapCoverage()
	for i := range r.stages {
		if !r.zone[i] {
			continue
		}
		places, err := read(ctx, i)
		if err != nil {
			return outcome{}, err
		}
		o.days[i] = rule(i, places)
	}
	return o, nil
}

func (p *Pipeline) waterPoints(ctx context.Context, r *run) (outcome, error) {
	return r.perDay(ctx, progress.Event{Type: "water_points_alerts"},
		func(ctx context.Context, i int) ([]alerts.Found, error) {
			return r.along(ctx, i, 2000, poi.WaterCategories)
		},
		func(i int, w []alerts.Found) []alerts.Alert { return alerts.WaterGap(i, r.ss[i], w) })
}

func (p *Pipeline) bikeShops(ctx context.Context, r *run) (outcome, error) {
	return r.perDay(ctx, progress.Event{Type: "bike_shops_alerts"},
		func(ctx context.Context, i int) ([]alerts.Found, error) {
			return r.nearest(ctx, alerts.Middle(r.ss[i]), 5_000, poi.BikeShopCategories, alerts.Repairs)
		},
		func(i int, shops []alerts.Found) []alerts.Alert { return alerts.BikeShopNone(i, r.ss, shops) })
}

func (p *Pipeline) healthServices(ctx context.Context, r *run) (outcome, error) {
	return r.perDay(ctx, progress.Event{Type: "health_services_alerts"},
		func(ctx context.Context, i int) ([]alerts.Found, error) {
			return r.nearest(ctx, alerts.Middle(r.ss[i]), alerts.HealthRadius, poi.HealthCategories, nil)
		},
		func(i int, h []alerts.Found) []alerts.Alert { return alerts.HealthNone(i, r.ss[i], h) })
}

func (p *Pipeline) culturalPOIs(ctx context.Context, r *run) (outcome, error) {
	return r.perDay(ctx, progress.Event{Type: "cultural_pois_alerts"},
		func(ctx context.Context, i int) ([]alerts.Found, error) {
			return r.along(ctx, i, alerts.CulturalRadius, poi.CulturalCategories)
		},
		func(i int, c []alerts.Found) []alerts.Alert { return alerts.Cultural(i, r.ss[i], c) })
}

func (p *Pipeline) railwayStations(ctx context.Context, r *run) (outcome, error) {
	return r.perDay(ctx, progress.Event{Type: "railway_stations_alerts"},
		func(ctx context.Context, i int) ([]alerts.Found, error) {
			a, err := r.nearest(ctx, r.ss[i].Start, alerts.StationRadius, poi.StationCategories, nil)
			if err != nil {
				return nil, err
			}
			b, err := r.nearest(ctx, r.ss[i].End, alerts.StationRadius, poi.StationCategories, nil)
			return append(a, b...), err
		},
		func(i int, st []alerts.Found) []alerts.Alert { return alerts.StationNone(i, r.ss[i], st) })
}

func (p *Pipeline) pois(ctx context.Context, r *run) (outcome, error) {
	resupply := make([]*Resupply, len(r.stages))
	o, err := r.perDay(ctx, progress.Event{Type: "pois_scanned"},
		func(ctx context.Context, i int) ([]alerts.Found, error) {
			return r.along(ctx, i, 2000, append(slices.Clone(poi.ResupplyCategories), poi.WaterCategories...))
		},
		func(i int, found []alerts.Found) []alerts.Alert {
			var food, water []alerts.Found
			for _, f := range found {
				if slices.Contains(poi.WaterCategories, f.Category) {
					water = append(water, f)
				} else {
					food = append(food, f)
				}
			}
			s := r.ss[i]
			if !s.IsRestDay {
				resupply[i] = resupplyOf(alerts.Curate(r.in, s, food, water), food, water)
			}
			var loc *time.Location
			if z, err := alerts.EmbeddedZones().Zone(s.Start); err == nil && r.date(i) != nil {
				loc = z
			}
			out := alerts.ResupplyNone(i, s, food)
			return append(out, alerts.ResupplyClosed(i, r.in, s, r.date(i), loc, food)...)
		})
	o.resupply = resupply
	return o, err
}

// poiOf is a place found as a day lists it; an unnamed one is told by its
// category, the generic label of §7.
func poiOf(f alerts.Found) PointOfInterest {
	p := PointOfInterest{Name: f.Name, Category: f.Category, Lat: round5(f.Point.Lat), Lon: round5(f.Point.Lon),
		DistanceFromStart: round1(f.Along / 1000), OpeningHours: optional(f.Tags["opening_hours"])}
	return p
}

func resupplyOf(c alerts.Resupply, food, water []alerts.Found) *Resupply {
	r := &Resupply{FoodAtLunch: []PointOfInterest{}, FoodAtArrival: []PointOfInterest{}, FoodCount: len(food), WaterCount: len(water)}
	for _, f := range c.FoodAtLunch {
		r.FoodAtLunch = append(r.FoodAtLunch, poiOf(f))
	}
	for _, f := range c.FoodAtArrival {
		r.FoodAtArrival = append(r.FoodAtArrival, poiOf(f))
	}
	if c.WaterMorning != nil {
		w := poiOf(*c.WaterMorning)
		r.WaterMorning = &w
	}
	if c.WaterAfternoon != nil {
		w := poiOf(*c.WaterAfternoon)
		r.WaterAfternoon = &w
	}
	for _, f := range food {
		r.Food = append(r.Food, poiOf(f))
	}
	for _, f := range water {
		r.Water = append(r.Water, poiOf(f))
	}
	return r
}

func (p *Pipeline) ferries(ctx context.Context, r *run) (outcome, error) {
	seen := map[int64]bool{}
	return r.perDay(ctx, progress.Event{Type: "ferries_alerts"},
		func(ctx context.Context, i int) ([]alerts.Found, error) {
			chunks, err := r.p.data.WaysNear(ctx, r.stages[i].Geometry, alerts.FerryRadius, poi.KindFerry)
			if err != nil {
				return nil, err
			}
			line := r.line(i, alerts.FerryRadius)
			var out []alerts.Found
			for _, c := range chunks {
				// the ferry's line, sampled every 20 m, against the day's
				best, bestOff := geo.Point{}, math.Inf(1)
				for k := 1; k < len(c.Points); k++ {
					a, b := c.Points[k-1], c.Points[k]
					n := max(1, int(geo.Haversine(a, b)/20))
					for j := 0; j <= n; j++ {
						f := float64(j) / float64(n)
						q := geo.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon)}
						if off, _, ok := line.Locate(q, alerts.FerryRadius); ok && off < bestOff {
							best, bestOff = q, off
						}
					}
				}
				if !math.IsInf(bestOff, 1) {
					out = append(out, alerts.Found{Name: c.Tags["name"], Category: poi.KindFerry, Point: best, Off: bestOff, OSMID: c.WayID})
				}
			}
			return out, nil
		},
		func(i int, found []alerts.Found) []alerts.Alert {
			var fs []alerts.Ferry
			for _, f := range found {
				fs = append(fs, alerts.Ferry{WayID: f.OSMID, Name: f.Name, At: f.Point})
			}
			return alerts.Ferries(i, r.ss[i], fs, seen)
		})
}

func (p *Pipeline) fords(ctx context.Context, r *run) (outcome, error) {
	return r.perDay(ctx, progress.Event{Type: "fords_alerts"},
		func(ctx context.Context, i int) ([]alerts.Found, error) {
			return r.along(ctx, i, alerts.FordRadius, poi.FordCategories)
		},
		func(i int, found []alerts.Found) []alerts.Alert {
			return alerts.Fords(i, r.ss[i], found, dayWeather(r.stages[i].Weather))
		})
}

func dayWeather(w *Weather) *alerts.DayWeather {
	if w == nil {
		return nil
	}
	return &alerts.DayWeather{WindSpeed: w.WindSpeed, Relative: w.RelativeWindDirection, RainChance: w.PrecipitationProbability, Comfort: w.ComfortIndex}
}

// bearing is the initial heading from a to b, degrees from north.
func bearing(a, b geo.Point) float64 {
	φ1, φ2 := a.Lat*math.Pi/180, b.Lat*math.Pi/180
	dλ := (b.Lon - a.Lon) * math.Pi / 180
	y := math.Sin(dλ) * math.Cos(φ2)
	x := math.Cos(φ1)*math.Sin(φ2) - math.Sin(φ1)*math.Cos(φ2)*math.Cos(dλ)
	return math.Mod(math.Atan2(y, x)*180/math.Pi+360, 360)
}

func (p *Pipeline) weather(ctx context.Context, r *run) (outcome, error) {
	o := outcome{weather: make([]*Weather, len(r.stages)), found: progress.Event{Type: "weather_fetched"}}
	switch {
	case p.forecasts == nil:
		o.coverage = CoverageNotConfigured
		return o, nil
	case r.in.StartDate == nil:
		o.coverage = CoverageNoDate
		return o, nil
	}
	for i, s := range r.ss {
		f, err := p.forecasts.Forecast(ctx, s.Start, *r.date(i))
		if errors.Is(err, weather.ErrNoForecast) {
			o.coverage = CoverageBeyondForecast
			continue
		}
		if err != nil {
			return outcome{}, err
		}
		rel := "unknown"
		if !s.IsRestDay && geo.Haversine(s.Start, s.End) > 100 {
			rel = weather.Relative(f.WindFrom, bearing(s.Start, s.End))
		}
		o.weather[i] = &Weather{Icon: weather.Icon(f.Code), TempMin: round1(f.TempMin), TempMax: round1(f.TempMax),
			WindSpeed: round1(f.WindSpeed), WindDirection: weather.Compass(f.WindFrom), PrecipitationProbability: f.RainChance,
			Humidity: f.Humidity, ComfortIndex: weather.Comfort(f), RelativeWindDirection: rel}
	}
	return o, nil
}

// wind judges the trip's headwinds and comfort from the stored forecasts;
// it says what the weather could not look at.
func (p *Pipeline) wind(_ context.Context, r *run) (outcome, error) {
	o := outcome{tripGroup: true, coverage: r.trip.Coverage[ComputeWeather], found: progress.Event{Type: "wind_alerts"}}
	ws := make([]*alerts.DayWeather, len(r.stages))
	for i, s := range r.stages {
		if !s.IsRestDay {
			ws[i] = dayWeather(s.Weather)
		}
	}
	o.trip = append(alerts.Wind(ws), alerts.Comfort(ws)...)
	return o, nil
}

// checkpoints are the countries at the first start and at each day's end.
func (r *run) checkpoints() ([]string, error) {
	if r.p.borders == nil || len(r.ss) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(r.ss)+1)
	c, err := r.p.borders.At(r.ss[0].Start)
	if err != nil {
		return nil, err
	}
	out = append(out, c)
	for _, s := range r.ss {
		if c, err = r.p.borders.At(s.End); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (p *Pipeline) borderCrossing(_ context.Context, r *run) (outcome, error) {
	o := outcome{days: make([][]alerts.Alert, len(r.stages)), found: progress.Event{Type: "border_crossing_alerts"}}
	if p.borders == nil {
		o.coverage = CoverageNotConfigured
		return o, nil
	}
	cps, err := r.checkpoints()
	if err != nil {
		return outcome{}, err
	}
	for _, a := range alerts.Borders(r.ss, cps) {
		o.days[a.StageIndex] = append(o.days[a.StageIndex], a)
	}
	return o, nil
}

func (p *Pipeline) calendar(_ context.Context, r *run) (outcome, error) {
	o := outcome{days: make([][]alerts.Alert, len(r.stages)), found: progress.Event{Type: "calendar_alerts"}}
	if r.in.StartDate == nil {
		o.coverage = CoverageNoDate
		return o, nil
	}
	cps, err := r.checkpoints()
	if err != nil {
		return outcome{}, err
	}
	for i := range r.stages {
		var here []string
		if i+1 < len(cps) {
			for _, c := range []string{cps[i], cps[i+1]} {
				if c != "" && !slices.Contains(here, c) {
					here = append(here, c)
				}
			}
		}
		if len(here) == 0 {
			here = []string{alerts.DefaultCountry}
		}
		var found *alerts.Holiday
		for _, c := range here {
			if !holidays.Known(c) {
				o.coverage = CoverageUnknownHoliday
				continue
			}
			if h, ok := holidays.On(c, *r.date(i)); ok && found == nil {
				found = &alerts.Holiday{Country: c, Name: h.Name}
			}
		}
		o.days[i] = alerts.Calendar(i, r.date(i), found)
	}
	return o, nil
}

func (p *Pipeline) events(ctx context.Context, r *run) (outcome, error) {
	o := outcome{events: make([]EventList, len(r.stages)), found: progress.Event{Type: "events_found"}}
	switch {
	case p.feed == nil:
		o.coverage = CoverageNotConfigured
		return o, nil
	case r.in.StartDate == nil:
		o.coverage = CoverageNoDate
		return o, nil
	}
	for i, s := range r.ss {
		if s.IsRestDay {
			continue
		}
		found, err := p.feed.Near(ctx, s.End, EventsRadius, *r.date(i))
		if err != nil {
			return outcome{}, err
		}
		list := EventList{}
		for _, e := range found[:min(MaxEvents, len(found))] {
			ev := Event{Name: e.Name, Type: e.Category, Lat: round5(e.Point.Lat), Lon: round5(e.Point.Lon),
				StartDate: e.Start.Format(time.RFC3339), EndDate: e.End.Format(time.RFC3339), URL: optional(e.URL),
				DistanceToEndPoint: round1(geo.Haversine(s.End, e.Point) / 1000), Source: "ical"}
			list = append(list, ev)
		}
		o.events[i] = list
	}
	return o, nil
}
