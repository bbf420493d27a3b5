package source

import (
	"bytes"
	"context"
	"errors"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
)

// stravaRoute reads /routes/{id}/export_gpx with the hardened GPX parser
// (no DOCTYPE, no entities, size-capped). Every track point of the file
// makes the one track: a Strava route is a single line even when the
// export splits it.
func (f *Fetcher) stravaRoute(ctx context.Context, id string) (Route, error) {
	body, err := f.strava.get(ctx, "routes", id, "export_gpx")
	if err != nil {
		return Route{}, err
	}
	parsed, err := gpx.Parse(bytes.NewReader(body))
	if errors.Is(err, gpx.ErrNoTrackPoints) {
		return Route{}, empty(err)
	}
	if err != nil {
		return Route{}, err
	}
	return Route{Title: parsed.Title, Tracks: [][]geo.Point{parsed.Points}}, nil
}
