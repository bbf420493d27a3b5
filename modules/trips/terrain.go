package trips

import (
	"errors"
	"time"

	"cairn.dev/cairn/modules/route/alerts"
)

// analyzeTerrain runs the alert rules that need no outside data on the
// stored days and returns each day's alerts as clients read them.
func analyzeTerrain(t *Trip, stages []Stage) ([][]Alert, error) {
	in := alerts.Trip{DepartureHour: t.DepartureHour, AverageSpeed: t.AverageSpeed, EbikeMode: t.EbikeMode}
	if t.StartDate != nil {
		if d, err := time.Parse(dateLayout, *t.StartDate); err == nil {
			in.StartDate = &d
		}
	}
	ss := make([]alerts.Stage, len(stages))
	for i, s := range stages {
		ss[i] = alerts.Stage{Geometry: s.Geometry, Distance: s.Distance, Ascent: s.Ascent, Descent: s.Descent,
			IsRestDay: s.IsRestDay, Start: s.StartPoint.point(), End: s.EndPoint.point()}
	}
	found, err := alerts.Analyze(in, ss)
	if err != nil && !errors.Is(err, alerts.ErrUnavailable) {
		return nil, err
	}
	// Unavailable: a day's time zone is unknown, so its sunset verdict is
	// withheld; every other alert stands.
	byStage, _ := alerts.ByStage(found, len(stages)) // no rule here speaks of the whole trip
	out := make([][]Alert, len(byStage))
	for i, list := range byStage {
		out[i] = make([]Alert, 0, len(list))
		for _, a := range list {
			out[i] = append(out[i], alertOf(a.Public()))
		}
	}
	return out, nil
}

func alertOf(a alerts.Alert) Alert {
	out := Alert{Code: string(a.Code), Severity: string(a.Severity), Message: a.Message, Lat: a.Lat, Lon: a.Lon}
	if a.Action != nil {
		out.Action = &AlertAction{Kind: string(a.Action.Kind), Label: a.Action.Label, Payload: a.Action.Payload}
	}
	return out
}
