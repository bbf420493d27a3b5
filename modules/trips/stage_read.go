package trips

import (
	"context"

	"cairn.dev/cairn/registry"
)

// StageDetail is one day in full, as get_stage answers it.
type StageDetail struct {
	Day
	StartPoint     Coordinate       `json:"startPoint" doc:"Where the day starts."`
	EndPoint       Coordinate       `json:"endPoint" doc:"Where the day ends."`
	GeometryPoints int              `json:"geometryPoints" doc:"How many points draw the day on a map (the line itself is served to apps, not here)."`
	AlertDetails   *[]Alert         `json:"alertDetails,omitempty" doc:"The day's alerts with where they apply and what can be done; absent until analysed."`
	Accommodations *[]Accommodation `json:"accommodations,omitempty" doc:"Places to sleep near the day's end (third-party data); absent until scanned."`
	// AccommodationsNote says why a day lists no place to sleep, and what
	// fixes it: an empty list alone sends a caller reading the day again.
	AccommodationsNote string         `json:"accommodationsNote,omitempty" doc:"Why the day has no candidates, and what fixes it; absent when it has some."`
	Selected           *Accommodation `json:"selectedAccommodation,omitempty" doc:"The chosen place to sleep, when one is."`
	Trip               State          `json:"trip" doc:"The trip's version, statuses and lock."`
}

// ResourceVersion implements registry.Versioned: the trip's version.
func (s StageDetail) ResourceVersion() int64 { return s.Trip.Version }

// CarriesThirdPartyText implements registry.ThirdParty: accommodation
// names and descriptions come from map data.
func (StageDetail) CarriesThirdPartyText() {}

// Coordinate is a published point.
type Coordinate struct {
	Lat float64 `json:"lat" doc:"Latitude."`
	Lon float64 `json:"lon" doc:"Longitude."`
	Ele float64 `json:"ele" doc:"Elevation in metres."`
}

func (t *Trips) stageDetail(ctx context.Context, c *registry.Call, _ *NoInput) (StageDetail, error) {
	r, err := t.loadDays(ctx, c)
	if err != nil {
		return StageDetail{}, err
	}
	d := r.(*Days)
	s := &d.Stages[d.Target]
	out := StageDetail{
		Day:            dayOf(s),
		StartPoint:     Coordinate(s.StartPoint),
		EndPoint:       Coordinate(s.EndPoint),
		GeometryPoints: len(s.Geometry),
		Selected:       s.Selected,
		Trip:           stateOf(d.Trip, c.Now),
	}
	if s.Alerts != nil {
		list := []Alert(*s.Alerts)
		out.AlertDetails = &list
	}
	if s.Accommodations != nil {
		list := withKeys(*s.Accommodations)
		out.Accommodations = &list
	}
	if s.Selected != nil {
		sel := *s.Selected
		sel.ID = sel.Key()
		out.Selected = &sel
	}
	if s.Accommodations == nil || len(*s.Accommodations) == 0 {
		why, err := t.noCandidates(ctx, c, s)
		if err != nil {
			return StageDetail{}, err
		}
		out.AccommodationsNote = why
	}
	return out, nil
}
