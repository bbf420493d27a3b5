package trips

import (
	"context"
	"errors"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/progress"
)

// terrain runs the rules of the days' own shape (continuity, climbing,
// steep gradients, e-bike range, rest days, arrival after dusk) and, where
// the local data covers a day, those of the ways it rides (surface,
// traffic); the e-bike rule navigates to the chargers found along.
func (p *Pipeline) terrain(ctx context.Context, r *run) (outcome, error) {
	if err := r.covered(ctx); err != nil {
		return outcome{}, err
	}
	o := outcome{days: make([][]alerts.Alert, len(r.stages)), found: progress.Event{Type: "terrain_alerts"}}
	o.coverage, o.dayCoverage = r.mapCoverage()
	var chargers []geo.Point
	if r.trip.EbikeMode {
		for i := range r.stages {
			if !r.zone[i] || r.ss[i].IsRestDay {
				continue
			}
			found, err := r.along(ctx, i, alerts.ChargerRadius, poi.ChargerCategories)
			if err != nil {
				return outcome{}, err
			}
			for _, f := range found {
				chargers = append(chargers, f.Point)
			}
		}
	}
	found, err := alerts.Analyzer{Chargers: chargers}.Analyze(r.in, r.ss)
	if err != nil && !errors.Is(err, alerts.ErrUnavailable) {
		return outcome{}, err
	}
	// Unavailable: a day's time zone is unknown, so its sunset verdict is
	// withheld; every other alert stands.
	byStage, _ := alerts.ByStage(found, len(r.stages)) // no terrain rule speaks of the whole trip
	for i := range r.stages {
		o.days[i] = byStage[i]
		if !r.zone[i] || r.ss[i].IsRestDay {
			continue
		}
		chunks, err := r.p.data.WaysNear(ctx, r.stages[i].Geometry, alerts.RideWidth, poi.KindRoad)
		if err != nil {
			return outcome{}, err
		}
		ways := make([]alerts.WayLine, len(chunks))
		for k, c := range chunks {
			ways[k] = alerts.WayLine{WayID: c.WayID, Tags: c.Tags, Points: c.Points}
		}
		ridden := alerts.Ride(r.stages[i].Geometry, ways)
		o.days[i] = append(o.days[i], alerts.SurfaceRough(i, r.ss[i], ridden)...)
		o.days[i] = append(o.days[i], alerts.Traffic(i, r.ss[i], ridden)...)
	}
	return o, nil
}
