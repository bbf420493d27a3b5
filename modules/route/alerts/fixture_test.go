package alerts_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
)

// base is where test stages start: open country in the Drôme.
var base = geo.Point{Lat: 44.7, Lon: 5.0}

// north is the point due north of p whose geodesic distance from p is the
// largest that does not exceed metres, found by bisection on the latitude,
// so that rules comparing a distance with a threshold can be held to the
// threshold itself. Elevation is carried over.
func north(p geo.Point, metres float64) geo.Point {
	lo, hi := 0.0, metres/100_000 // a degree of latitude is over 100 km
	for {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if geo.Distance(p, geo.Point{Lat: p.Lat + mid, Lon: p.Lon}) <= metres {
			lo = mid
		} else {
			hi = mid
		}
	}
	return geo.Point{Lat: p.Lat + lo, Lon: p.Lon, Ele: p.Ele}
}

// ride is a riding stage of km kilometres and ascent metres of D+, a straight
// line north from start.
func ride(start geo.Point, km, ascent float64) alerts.Stage {
	end := north(start, km*1000)
	return alerts.Stage{
		Geometry: []geo.Point{start, end},
		Distance: km,
		Ascent:   ascent,
		Start:    start,
		End:      end,
	}
}

// rest is a rest day at p.
func rest(p geo.Point) alerts.Stage {
	return alerts.Stage{Geometry: []geo.Point{p}, IsRestDay: true, Start: p, End: p}
}

// seg is one segment of a test climb: its horizontal length in metres and its
// grade (0.09 is 9 %).
type seg struct{ metres, grade float64 }

// climb is a line north from base whose segments have the given lengths and
// grades.
func climb(segs ...seg) []geo.Point {
	line := []geo.Point{base}
	for _, s := range segs {
		a := line[len(line)-1]
		b := north(a, s.metres)
		b.Ele = a.Ele + s.grade*geo.Distance(a, b)
		line = append(line, b)
	}
	return line
}

// repeat is n copies of s.
func repeat(n int, s seg) []seg {
	out := make([]seg, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// codes lists the alerts' codes, in order.
func codes(found []alerts.Alert) []alerts.Code {
	out := []alerts.Code{}
	for _, a := range found {
		out = append(out, a.Code)
	}
	return out
}

// stageIndexes lists the alerts' stage indexes, in order.
func stageIndexes(found []alerts.Alert) []int {
	out := []int{}
	for _, a := range found {
		out = append(out, a.StageIndex)
	}
	return out
}

// date is a start date at midnight UTC.
func date(year int, month time.Month, day int) *time.Time {
	d := time.Date(year, month, day, 0, 0, 0, 0, time.UTC)
	return &d
}

// oneZone is a Zones fake that puts every point in the same zone.
type oneZone struct{ loc *time.Location }

func (z oneZone) Zone(geo.Point) (*time.Location, error) { return z.loc, nil }

// zoneIn loads a zone or fails the test.
func zoneIn(t *testing.T, name string) oneZone {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return oneZone{loc}
}

// readSteep reads the length and mean grade back from a steep_gradient
// message.
func readSteep(message string, length, grade *float64) (int, error) {
	return fmt.Sscanf(message, "Steep climb: %f km at %f %% on average.", length, grade)
}
