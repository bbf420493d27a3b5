package alerts

import "cairn.dev/cairn/modules/route/geo"

// Analyzer runs the rules of this package over a trip. The zero value works:
// embedded time zones, no chargers known.
type Analyzer struct {
	// Zones finds the local time zone of stage ends and starts for the
	// sunset rule; nil means EmbeddedZones.
	Zones Zones
	// Chargers are the e-bike charging points found along the trip (see
	// EbikeRangeExceeded); nil when none are known or the lookup was
	// unavailable, and the e-bike rule then proposes its auto_fix.
	Chargers []geo.Point
}

// Analyze runs every rule of this package with the zero Analyzer.
func Analyze(trip Trip, stages []Stage) ([]Alert, error) {
	return Analyzer{}.Analyze(trip, stages)
}

// Analyze runs the rules in the priority order of pipeline.md §8 and returns
// their alerts in that order, each rule's in stage order. Rest days skip
// every riding rule; continuity still runs on them.
//
// The error is non-nil only when some sunset verdicts could not be formed
// (see SunsetArrival); the alerts found are returned all the same.
func (a Analyzer) Analyze(trip Trip, stages []Stage) ([]Alert, error) {
	zones := a.Zones
	if zones == nil {
		zones = EmbeddedZones()
	}
	sunset, err := SunsetArrival(trip, stages, zones)

	var out []Alert
	out = append(out, Continuity(stages)...)                           // priority 5
	out = append(out, ElevationGain(stages)...)                        // 10
	out = append(out, SteepGradient(stages)...)                        // 20
	out = append(out, EbikeRangeExceeded(trip, stages, a.Chargers)...) // 20
	out = append(out, sunset...)                                       // 20
	out = append(out, RestDaySuggested(stages)...)                     // 100
	return out, err
}
