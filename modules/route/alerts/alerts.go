// Package alerts holds the alert rules of pipeline.md §8. Each rule is a
// pure, deterministic function of what it is given: the trip's settings
// and stages for the terrain rules (Analyze runs them in priority order),
// and for the others what the pipeline read for them (the ways ridden, the
// places along each day, the weather, the countries). A rule given nothing
// claims nothing. What an alert says is a words.Text, rendered in the
// trip's language when read; Message keeps it in English.
package alerts

import (
	"errors"

	"cairn.dev/cairn/modules/route/words"
)

// ErrUnavailable marks a verdict that could not be formed (the data it
// needs is missing): the alerts found are returned all the same, and the
// caller tells an incomplete verdict from "nothing to report". Test with
// errors.Is.
var ErrUnavailable = errors.New("alerts: data not available")

// Severity is how urgent an alert is (model.md: AlertType).
type Severity string

// Severities, most urgent first.
const (
	SeverityCritical Severity = "critical"
	SeverityWarning  Severity = "warning"
	SeverityNudge    Severity = "nudge"
)

// Code names one rule variant. Clients dedupe and dismiss alerts by code, so
// a code never changes when its message is reworded.
type Code string

// The codes of pipeline.md §8, in the table's order.
const (
	CodeContinuityGapCritical        Code = "continuity_gap_critical"
	CodeContinuityGapWarning         Code = "continuity_gap_warning"
	CodeElevationGain                Code = "elevation_gain"
	CodeSteepGradient                Code = "steep_gradient"
	CodeSurfaceRough                 Code = "surface_rough"
	CodeTrafficMainRoad              Code = "traffic_main_road"
	CodeTrafficSecondaryRoadFast     Code = "traffic_secondary_road_fast"
	CodeTrafficSecondaryRoadSlow     Code = "traffic_secondary_road_slow"
	CodeEbikeRangeExceeded           Code = "ebike_range_exceeded"
	CodeSunsetArrivalAfterTwilight   Code = "sunset_arrival_after_twilight"
	CodeRestDaySuggested             Code = "rest_day_suggested"
	CodeCalendarPublicHoliday        Code = "calendar_public_holiday"
	CodeCalendarSunday               Code = "calendar_sunday"
	CodeWindHeadwind                 Code = "wind_headwind"
	CodeComfortPoorConditions        Code = "comfort_poor_conditions"
	CodeBikeShopNoneNearby           Code = "bike_shop_none_nearby"
	CodeResupplyNoneOnStage          Code = "resupply_none_on_stage"
	CodeResupplyClosedAtPassage      Code = "resupply_closed_at_passage"
	CodeAccommodationSeasonalClosure Code = "accommodation_seasonal_closure"
	CodeWaterPointGap                Code = "water_point_gap"
	CodeCulturalPOISuggestion        Code = "cultural_poi_suggestion"
	CodeRailwayStationNoneNearby     Code = "railway_station_none_nearby"
	CodeHealthServiceNoneNearby      Code = "health_service_none_nearby"
	CodeBorderCrossing               Code = "border_crossing"
	CodeFerryCrossing                Code = "ferry_crossing"
	CodeFordCrossingWet              Code = "ford_crossing_wet"
	CodeFordCrossingDry              Code = "ford_crossing_dry"
)

// codes is the vocabulary in the table's order; Codes hands out copies so no
// caller can reorder or shorten it for the others.
var codes = [...]Code{
	CodeContinuityGapCritical, CodeContinuityGapWarning, CodeElevationGain, CodeSteepGradient,
	CodeSurfaceRough, CodeTrafficMainRoad, CodeTrafficSecondaryRoadFast, CodeTrafficSecondaryRoadSlow,
	CodeEbikeRangeExceeded, CodeSunsetArrivalAfterTwilight, CodeRestDaySuggested,
	CodeCalendarPublicHoliday, CodeCalendarSunday, CodeWindHeadwind, CodeComfortPoorConditions,
	CodeBikeShopNoneNearby, CodeResupplyNoneOnStage, CodeResupplyClosedAtPassage,
	CodeAccommodationSeasonalClosure, CodeWaterPointGap, CodeCulturalPOISuggestion,
	CodeRailwayStationNoneNearby, CodeHealthServiceNoneNearby, CodeBorderCrossing,
	CodeFerryCrossing, CodeFordCrossingWet, CodeFordCrossingDry,
}

// Codes is every alert code of pipeline.md §8 (27, in the table's order),
// including those whose rules need outside data, so clients and schemas can
// rely on the whole vocabulary. The slice is a fresh copy.
func Codes() []Code { return append([]Code(nil), codes[:]...) }

// ActionKind says what a client can do about an alert (model.md:
// AlertActionKind).
type ActionKind string

// Action kinds. Only navigate and dismiss reach clients; see Action.Published.
const (
	ActionNavigate ActionKind = "navigate" // payload: lat, lon, optionally segments
	ActionDismiss  ActionKind = "dismiss"
	ActionAutoFix  ActionKind = "auto_fix" // payload: the change the server would make
	ActionDetour   ActionKind = "detour"
)

// Action is what a client can do about an alert.
//
// A navigate payload carries "lat" and "lon" (float64) and, when the alert
// covers a stretch of road, "segments": a [][][2]float64 of [lat, lon]
// polylines (model.md: AlertAction).
type Action struct {
	Kind    ActionKind
	Text    words.Text // the label, in any language
	Label   string     // the label in English
	Payload map[string]any
}

// act is an action of kind labelled by key.
func act(kind ActionKind, key string, args words.Args, payload map[string]any) *Action {
	t := words.T(key, args)
	return &Action{Kind: kind, Text: t, Label: t.In(words.English), Payload: payload}
}

// Published reports whether the action is delivered to clients. auto_fix and
// detour are computed so that a later version can offer them, but the read
// models show `action: null` for them today (test-scenarios.md 55). A nil
// action is not published.
func (a *Action) Published() bool {
	return a != nil && (a.Kind == ActionNavigate || a.Kind == ActionDismiss)
}

// TripLevel is the StageIndex of an alert about the whole trip.
const TripLevel = -1

// Alert is one finding of a rule.
type Alert struct {
	Code     Code
	Severity Severity
	Text     words.Text // what it says, in any language
	Message  string     // Text in English
	// StageIndex is the 0-based stage the alert belongs to, or TripLevel.
	StageIndex int
	Lat, Lon   *float64 // where it applies; nil when it has no single place
	Action     *Action  // nil when there is nothing to do
	// Place is the place a suggestion is about (cultural_poi_suggestion).
	Place *Found
}

// say sets what the alert says.
func (a *Alert) say(key string, args words.Args) {
	a.Text = words.T(key, args)
	a.Message = a.Text.In(words.English)
}

// alert is an alert of code at stage i saying key with args.
func alert(code Code, sev Severity, i int, key string, args words.Args) Alert {
	a := Alert{Code: code, Severity: sev, StageIndex: i}
	a.say(key, args)
	return a
}

// Public is the alert as clients read it: its action is dropped unless it is
// published (see Action.Published). The alert itself is not changed.
func (a Alert) Public() Alert {
	if !a.Action.Published() {
		a.Action = nil
	}
	return a
}

// ByStage sorts alerts into one list per stage (index-aligned with n stages)
// and the trip-level ones, keeping their order. Every stage list is non-nil,
// since a stored nil reads as "never computed" and these were computed. An
// alert whose StageIndex is out of range is treated as trip-level rather than
// dropped.
func ByStage(alerts []Alert, n int) (stages [][]Alert, trip []Alert) {
	stages = make([][]Alert, n)
	for i := range stages {
		stages[i] = []Alert{}
	}
	for _, a := range alerts {
		if a.StageIndex >= 0 && a.StageIndex < n {
			stages[a.StageIndex] = append(stages[a.StageIndex], a)
		} else {
			trip = append(trip, a)
		}
	}
	return stages, trip
}
