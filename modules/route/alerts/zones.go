package alerts

import (
	"errors"
	"fmt"
	"sync"
	"time"

	// The server image may have no zoneinfo of its own; without one, every
	// sunset verdict would be withheld. Go's copy costs about 450 kB.
	_ "time/tzdata"

	"github.com/ringsaturn/tzf"

	"cairn.dev/cairn/modules/route/geo"
)

// Zones finds the time zone in force at a point.
type Zones interface {
	Zone(p geo.Point) (*time.Location, error)
}

// EmbeddedZones answers from the time-zone boundaries embedded in
// github.com/ringsaturn/tzf (its lite data set, timezone-boundary-builder
// polygons including the oceans, so a point at sea still gets its nautical
// zone). The data is loaded once per process, on first use: about 2 s on
// two cores and 150 MB at its peak, some 30–60 MB kept afterwards. It grows
// a binary by about 14 MB (6.8 MB of embedded boundaries, the rest protobuf
// and geometry code). A server that must not pay the load on its first
// terrain run can call Zone once while starting; a trip without a start
// date never asks for a zone.
func EmbeddedZones() Zones { return embeddedZones{} }

type embeddedZones struct{}

var (
	loadFinder = sync.OnceValues(tzf.NewDefaultFinder)
	// locations caches time.LoadLocation, which reads and parses the zone's
	// rules on every call.
	locations sync.Map // zone name → *time.Location
)

// ErrNoZone is returned when no time zone is known at a point.
var ErrNoZone = errors.New("alerts: no time zone at this point")

// Zone implements Zones.
func (embeddedZones) Zone(p geo.Point) (*time.Location, error) {
	finder, err := loadFinder()
	if err != nil {
		return nil, fmt.Errorf("alerts: loading time-zone boundaries: %w", err)
	}
	name := finder.GetTimezoneName(p.Lon, p.Lat) // longitude first
	if name == "" {
		return nil, fmt.Errorf("%w (%.5f, %.5f)", ErrNoZone, p.Lat, p.Lon)
	}
	if loc, ok := locations.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("alerts: time zone %q: %w", name, err)
	}
	locations.Store(name, loc)
	return loc, nil
}
