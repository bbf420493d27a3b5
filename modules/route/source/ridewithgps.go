package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/text"
)

// RideWithGPS answers /routes/{id}.json for public routes:
//
//	{"type": "route", "route": {
//	    "name": "Route name",
//	    "track_points": [{"lat": 45.1, "lng": 6.2, "e": 1200.5, "d": 0}, ...]}}
//
// Older answers spell the coordinates x (longitude) and y (latitude); both
// spellings are read, lat/lng first. Elevation e is optional (0).
type rwgpsAnswer struct {
	Route *struct {
		Name        string `json:"name"`
		TrackPoints []struct {
			Lat *float64 `json:"lat"`
			Lng *float64 `json:"lng"`
			Y   *float64 `json:"y"`
			X   *float64 `json:"x"`
			E   float64  `json:"e"`
		} `json:"track_points"`
	} `json:"route"`
}

var errNoRWGPSRoute = errors.New("source: ridewithgps answer without route")

func (f *Fetcher) rideWithGPSRoute(ctx context.Context, id string) (Route, error) {
	body, err := f.rwgps.get(ctx, "routes", id+".json")
	if err != nil {
		return Route{}, err
	}
	var answer rwgpsAnswer
	if err := json.Unmarshal(body, &answer); err != nil {
		return Route{}, fmt.Errorf("source: ridewithgps answer unreadable: %w", err)
	}
	if answer.Route == nil {
		return Route{}, errNoRWGPSRoute
	}
	points := make([]geo.Point, 0, len(answer.Route.TrackPoints))
	for _, tp := range answer.Route.TrackPoints {
		lat, lon := tp.Lat, tp.Lng
		if lat == nil || lon == nil {
			lat, lon = tp.Y, tp.X
		}
		if lat == nil || lon == nil || !validPoint(*lat, *lon) {
			return Route{}, errBadPoint
		}
		points = append(points, geo.Point{Lat: *lat, Lon: *lon, Ele: tp.E})
	}
	if len(points) == 0 {
		return Route{}, empty(errors.New("source: ridewithgps route without track points"))
	}
	return Route{Title: text.Clean(answer.Route.Name, text.MaxTitle), Tracks: [][]geo.Point{points}}, nil
}
