// Package routing joins via points into a ridable line: the detour through a
// waypoint that stage editing streams as route_segment_recalculated
// (stage-editing.md, Waypoint).
//
// Two Routers exist. GreatCircle is the default and needs nothing: it joins
// the points along great circles and says so (Approximate is always true).
// BRouter asks a self-hosted BRouter server, which knows the roads, their
// surfaces and the terrain. New picks one from a Config.
package routing

import (
	"context"
	"errors"
	"math"
	"time"

	"cairn.dev/cairn/modules/route/geo"
)

// Router turns an ordered list of via points (at least two: start, any
// waypoints, end) into a route through all of them, in that order.
type Router interface {
	Route(ctx context.Context, via []geo.Point) (Result, error)
}

// Result is a routed line and what it costs to ride.
type Result struct {
	// Coordinates is the line, from the first via point to the last; its
	// first and last points are the first and last via points.
	Coordinates []geo.Point
	// Distance is the length of the line in kilometres.
	Distance float64
	// ElevationGain is the total climb in metres; 0 when the router has no
	// elevation model.
	ElevationGain float64
	// Duration is the estimated riding time.
	Duration time.Duration
	// Approximate is true when the line does not follow roads, so callers
	// can tell the rider the detour is an estimate.
	Approximate bool
}

// Refusals of the via points, returned before any work or request. Test with
// errors.Is.
var (
	// ErrTooFewPoints refuses fewer than two via points.
	ErrTooFewPoints = errors.New("routing: at least two via points are needed")
	// ErrInvalidPoint refuses a via point whose latitude is outside ±90,
	// longitude outside ±180, or any value not finite.
	ErrInvalidPoint = errors.New("routing: via point is not a valid coordinate")
)

// DefaultSpeed is the cycling speed, in km/h, used to turn a distance into
// a duration when the router has no better estimate.
const DefaultSpeed = 15.0

// Config chooses the Router New builds. The zero value gives GreatCircle at
// DefaultSpeed, so a deployment without a routing engine still answers.
type Config struct {
	// Speed is GreatCircle's cycling speed in km/h; 0 means DefaultSpeed.
	// BRouter ignores it: its own estimate accounts for the climbs.
	Speed float64
	// BRouter configures the engine client; an empty BaseURL means no
	// engine, hence GreatCircle.
	BRouter BRouterOptions
}

// New returns a *BRouter when cfg names a BaseURL, else GreatCircle.
func New(cfg Config) (Router, error) {
	if cfg.BRouter.BaseURL == "" {
		return GreatCircle{Speed: cfg.Speed}, nil
	}
	return NewBRouter(cfg.BRouter)
}

// checkVia applies the refusals every Router shares.
func checkVia(via []geo.Point) error {
	if len(via) < 2 {
		return ErrTooFewPoints
	}
	for _, p := range via {
		if !validCoordinate(p.Lat, p.Lon) || math.IsNaN(p.Ele) || math.IsInf(p.Ele, 0) {
			return ErrInvalidPoint
		}
	}
	return nil
}

// validCoordinate is false for NaN as well, because every comparison with
// NaN is.
func validCoordinate(lat, lon float64) bool {
	return lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180
}

// durationAt is the time to ride km kilometres at speed km/h.
func durationAt(km, speed float64) time.Duration {
	return time.Duration(math.Round(km / speed * float64(time.Hour)))
}
