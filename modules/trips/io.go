package trips

import (
	"time"

	"cairn.dev/cairn/registry"
)

// CreateInput is what a creation accepts: the source and the settings, and
// nothing the server owns (status, version, createdAt … are refused by name).
type CreateInput struct {
	SourceURL string `json:"sourceUrl" maxLength:"2048" doc:"https address of the route to import (Komoot tour or collection, Strava route, RideWithGPS route)."`
	SettingsInput
}

// SettingsInput are the settings a creation may set, each optional.
type SettingsInput struct {
	StartDate                 *string  `json:"startDate,omitempty" format:"date" example:"2099-06-01" doc:"First day (YYYY-MM-DD, UTC); the trip locks on that day."`
	EndDate                   *string  `json:"endDate,omitempty" format:"date" example:"2099-06-03" doc:"Last day (YYYY-MM-DD), after startDate: the route is cut into that many days."`
	FatigueFactor             *float64 `json:"fatigueFactor,omitempty" minimum:"0.5" maximum:"1" doc:"Each day is this fraction of the previous one (0.5 to 1.0, default 0.9)."`
	ElevationPenalty          *float64 `json:"elevationPenalty,omitempty" exclusiveMinimum:"0" maximum:"1000" doc:"Metres of climb worth one flat km (over 0, at most 1000, default 50)."`
	MaxDistancePerDay         *float64 `json:"maxDistancePerDay,omitempty" minimum:"30" maximum:"300" doc:"Longest day in km (30 to 300, default 80)."`
	AverageSpeed              *float64 `json:"averageSpeed,omitempty" minimum:"5" maximum:"50" doc:"Riding speed on the flat in km/h (5 to 50, default 15)."`
	DepartureHour             *int     `json:"departureHour,omitempty" minimum:"0" maximum:"23" doc:"Hour the rider leaves each morning, local time (0 to 23, default 8)."`
	EbikeMode                 *bool    `json:"ebikeMode,omitempty" doc:"Plan for an e-bike's range (default false)."`
	EnabledAccommodationTypes []string `json:"enabledAccommodationTypes,omitempty" nullable:"false" minItems:"1" enum:"camp_site,hostel,alpine_hut,chalet,guest_house,hotel,wilderness_hut" doc:"Accommodation types to look for (default: all seven)."`
}

// UpdateInput is a JSON merge patch of the settings: an absent field is
// kept, null clears a nullable one.
type UpdateInput struct {
	Title                     *string  `json:"title,omitempty" maxLength:"255" nullable:"true" doc:"Name of the trip (at most 255 characters); null restores none."`
	SourceURL                 *string  `json:"sourceUrl,omitempty" maxLength:"2048" doc:"https address of the route; a new one re-imports it."`
	StartDate                 *string  `json:"startDate,omitempty" format:"date" nullable:"true" example:"2099-06-01" doc:"First day (YYYY-MM-DD, UTC); null removes it. A started trip stays locked."`
	EndDate                   *string  `json:"endDate,omitempty" format:"date" nullable:"true" example:"2099-06-03" doc:"Last day (YYYY-MM-DD), after startDate; null removes it."`
	FatigueFactor             *float64 `json:"fatigueFactor,omitempty" minimum:"0.5" maximum:"1" doc:"Each day is this fraction of the previous one (0.5 to 1.0)."`
	ElevationPenalty          *float64 `json:"elevationPenalty,omitempty" exclusiveMinimum:"0" maximum:"1000" doc:"Metres of climb worth one flat km (over 0, at most 1000)."`
	MaxDistancePerDay         *float64 `json:"maxDistancePerDay,omitempty" minimum:"30" maximum:"300" doc:"Longest day in km (30 to 300)."`
	AverageSpeed              *float64 `json:"averageSpeed,omitempty" minimum:"5" maximum:"50" doc:"Riding speed on the flat in km/h (5 to 50)."`
	DepartureHour             *int     `json:"departureHour,omitempty" minimum:"0" maximum:"23" doc:"Hour the rider leaves each morning, local time (0 to 23)."`
	EbikeMode                 *bool    `json:"ebikeMode,omitempty" doc:"Plan for an e-bike's range."`
	EnabledAccommodationTypes []string `json:"enabledAccommodationTypes,omitempty" nullable:"false" minItems:"1" enum:"camp_site,hostel,alpine_hut,chalet,guest_house,hotel,wilderness_hut" doc:"Accommodation types to look for."`
	Locale                    *string  `json:"locale,omitempty" enum:"en,fr" doc:"Language of alerts and pages."`
}

// ListInput selects a page of the caller's trips.
type ListInput struct {
	registry.PageInput
	Title     string `json:"title,omitempty" maxLength:"255" doc:"Only trips whose title contains this text (case-insensitive)."`
	StartDate string `json:"startDate,omitempty" doc:"Only trips starting on or after this day (YYYY-MM-DD)."`
	EndDate   string `json:"endDate,omitempty" doc:"Only trips ending on or before this day (YYYY-MM-DD)."`
}

// NoInput is the input of operations addressed by their URI variables alone.
type NoInput struct{}

// State is the canonical short answer about a trip: what every write
// returns, and GET /trips/{id}. Its values are read, never defaulted.
type State struct {
	ID                string            `json:"id" doc:"The trip's id."`
	ComputationStatus map[string]string `json:"computationStatus" doc:"Each scheduled computation and its status (pending, running, done, failed, superseded); empty when nothing is scheduled."`
	IsLocked          bool              `json:"isLocked" doc:"True once the start date is today or earlier (UTC): the trip can no longer be edited."`
	Version           int64             `json:"version" doc:"Structural version; send it back to change the trip."`
	Next              string            `json:"next,omitempty" doc:"What to call next."`
}

// CreatedID implements registry.Created.
func (s State) CreatedID() string { return s.ID }

// ResourceVersion implements registry.Versioned.
func (s State) ResourceVersion() int64 { return s.Version }

// ResourceLocation implements registry.Located.
func (s State) ResourceLocation() string { return "/trips/" + s.ID }

// FollowUp implements registry.Followed: get_trip follows the trip's
// computations while any is unsettled.
func (s State) FollowUp() registry.FollowUp {
	if allSettled(s.ComputationStatus) {
		return registry.FollowUp{}
	}
	return registry.FollowUp{Op: "trips.get", Vars: map[string]string{"id": s.ID}}
}

// Settings are the writable settings of a trip as published.
type Settings struct {
	Title                     *string  `json:"title,omitempty" text:"third-party" doc:"Name of the trip; taken from the source when not set."`
	SourceURL                 string   `json:"sourceUrl" doc:"Address the route was imported from."`
	StartDate                 *string  `json:"startDate,omitempty" doc:"First day (YYYY-MM-DD), absent when not set."`
	EndDate                   *string  `json:"endDate,omitempty" doc:"Last day (YYYY-MM-DD), absent when not set."`
	FatigueFactor             float64  `json:"fatigueFactor" doc:"Each day is this fraction of the previous one."`
	ElevationPenalty          float64  `json:"elevationPenalty" doc:"Metres of climb worth one flat kilometre."`
	MaxDistancePerDay         float64  `json:"maxDistancePerDay" doc:"Longest day in km."`
	AverageSpeed              float64  `json:"averageSpeed" doc:"Riding speed on the flat in km/h."`
	DepartureHour             int      `json:"departureHour" doc:"Hour the rider leaves each morning."`
	EbikeMode                 bool     `json:"ebikeMode" doc:"Planned for an e-bike."`
	EnabledAccommodationTypes []string `json:"enabledAccommodationTypes" doc:"Accommodation types looked for."`
	Locale                    string   `json:"locale" text:"own" doc:"Language of the trip's alerts, notes and pages (en or fr): the creating request's, changed in the settings."`
}

// Detail is a trip as get_trip answers it: settings first, then its days.
type Detail struct {
	ID                string            `json:"id" doc:"The trip's id."`
	Settings          Settings          `json:"settings" doc:"The trip's settings."`
	SourceType        *string           `json:"sourceType,omitempty" doc:"Kind of source, once the route is imported."`
	Status            string            `json:"status" doc:"draft until at least two days are stored, then ready."`
	IsLocked          bool              `json:"isLocked" doc:"True once the trip has started: it can no longer be edited."`
	Shared            bool              `json:"shared" doc:"True while the trip has an active public address."`
	ShareURL          string            `json:"shareUrl,omitempty" doc:"The active public address, absolute; absent when not shared."`
	ComputationStatus map[string]string `json:"computationStatus" doc:"Each scheduled computation and its status."`
	Partial           bool              `json:"partial" doc:"True while the days are not computed yet: the day list is then absent, not empty."`
	RetryAfter        int               `json:"retryAfter,omitempty" doc:"While partial: seconds to wait before reading the trip again."`
	Failure           string            `json:"failure,omitempty" text:"own" doc:"Why the route could not be imported, once it failed: route_unsupported, route_not_found, route_empty, route_too_large, route_refused or provider_failed; the note says what to do."`
	WeatherStatus     string            `json:"weatherStatus,omitempty" doc:"The weather's state: running, done or failed; absent when not tracked."`
	OutOfZone         bool              `json:"outOfZone,omitempty" doc:"True when part of the route lies outside the area the server's map data covers (see coverage)."`
	Coverage          Coverage          `json:"coverage,omitempty" text:"own" doc:"Each computation that could not look everywhere, and why: out_of_zone (no map data there), no_map_data (none imported), not_configured (no provider), no_date (needs a start date), beyond_forecast, unknown_holidays. A computation done and not named looked everywhere; an empty result then means it found nothing."`
	Alerts            []TripAlert       `json:"alerts,omitempty" doc:"The trip's own alerts (wind, comfort), in its language."`
	Days              []DigestDay       `json:"days,omitempty" doc:"One line per day, present once computed."`
	Note              string            `json:"note,omitempty" doc:"What the answer means and what to call next."`
	Version           int64             `json:"version" doc:"Structural version; send it back to change the trip."`
	CreatedAt         time.Time         `json:"createdAt" doc:"When the trip was created."`
	UpdatedAt         time.Time         `json:"updatedAt" doc:"When the trip last changed."`

	heldAnswer                     // kept by revision (keptanswers.go); abridged to a detailHead
	settled    registry.Settlement // when abridged, its Settlement
}

// ResourceVersion implements registry.Versioned.
func (d Detail) ResourceVersion() int64 { return d.Version }

// detailHead is what a kept get_trip answer keeps of its value: what the
// faces read of it (its version, language and settlement, the last made
// once), not its days, alerts or computations.
type detailHead struct {
	version int64
	locale  string
	settled registry.Settlement
}

// keptHead is the head of d kept (keptAnswers).
func (d Detail) keptHead() detailHead {
	return detailHead{version: d.Version, locale: d.Settings.Locale, settled: d.Settlement()}
}

// abridgedDetail is a kept get_trip answer given again: what was held of
// it and its head.
func abridgedDetail(held heldAnswer, h detailHead) Detail {
	return Detail{Settings: Settings{Locale: h.locale}, Version: h.version, heldAnswer: held, settled: h.settled}
}

// Settlement implements registry.Settling: the trip's computations, and
// the failure's words once one failed.
func (d Detail) Settlement() registry.Settlement {
	if d.abridged {
		return d.settled
	}
	s := registry.Settlement{Settled: allSettled(d.ComputationStatus) && !d.Partial, Total: len(d.ComputationStatus), Message: d.Note}
	for _, st := range d.ComputationStatus {
		if Settled(st) {
			s.Done++
		}
	}
	if d.Failure != "" || d.ComputationStatus[ComputeStages] == StatusFailed {
		s.Failure = d.Note
	}
	return s
}

// ContentLanguage implements registry.Localized: the trip's words are in
// its own language.
func (d Detail) ContentLanguage() string { return d.Settings.Locale }

// CarriesThirdPartyText implements registry.ThirdParty: the title may come
// from the source, accommodation names from map data.
func (Detail) CarriesThirdPartyText() {}

// Day is one line of the digest.
type Day struct {
	ID        string      `json:"id" doc:"Stable id of the day, for reading and editing it."`
	DayNumber int         `json:"dayNumber" doc:"1 for the first day."`
	Distance  float64     `json:"distance" doc:"Kilometres ridden."`
	Ascent    float64     `json:"ascent" doc:"Metres climbed."`
	Descent   float64     `json:"descent" doc:"Metres descended."`
	IsRestDay bool        `json:"isRestDay,omitempty" doc:"True for a day off the bike."`
	Label     *string     `json:"label,omitempty" text:"third-party" doc:"The rider's name for the day, when set."`
	Sleep     *string     `json:"accommodation,omitempty" text:"third-party" doc:"Name of the chosen place to sleep (third-party data), when one is chosen."`
	Alerts    *AlertCount `json:"alerts,omitempty" doc:"How many alerts of each severity the day has (the day's read lists them): absent until analysed, {} when nothing was found."`
}

// DigestDay is a day as get_trip lists it: its line, when it is ridden and
// where. The chain of days is continuous, so a day's start is said only
// where it is news: on the first day, and on a day that does not start
// where the one before ended.
type DigestDay struct {
	Day
	// DayNumber is left out of the digest: its days are in order, the
	// first being day 1, and 30 days of it cost the budget a sentence.
	DayNumber  int     `json:"dayNumber,omitempty" doc:"Not given: the days are listed in order, the first is day 1."`
	Date       string  `json:"date,omitempty" doc:"The day's date (YYYY-MM-DD): the start date plus the days before it; absent without a start date."`
	Start      *LatLon `json:"start,omitempty" doc:"Where the day starts, [lat, lon]; given on the first day and where a day does not start at the previous day's end."`
	StartLabel *string `json:"startLabel,omitempty" text:"third-party" doc:"The town or village nearest the start, given with start; absent outside the gazetteer's coverage."`
	End        LatLon  `json:"end" doc:"Where the day ends, [lat, lon]."`
	EndLabel   *string `json:"endLabel,omitempty" text:"third-party" doc:"The town or village nearest the end; absent outside the gazetteer's coverage."`
}

// LatLon is a place as the digest gives it: [lat, lon] to 5 decimals
// (about a metre), the stored points having no name.
type LatLon [2]float64

// AlertCount is a day's alerts as the digest summarises them: how many of
// each severity. The messages, places and actions are the day's read.
type AlertCount struct {
	Critical int `json:"critical,omitempty" doc:"Critical alerts."`
	Warning  int `json:"warning,omitempty" doc:"Warnings."`
	Nudge    int `json:"nudge,omitempty" doc:"Nudges."`
}

// add counts one alert of severity sev.
func (c *AlertCount) add(sev string) {
	switch sev {
	case "critical":
		c.Critical++
	case "warning":
		c.Warning++
	default:
		c.Nudge++
	}
}

// Summary is a trip in a listing.
type Summary struct {
	ID            string    `json:"id" doc:"The trip's id."`
	Title         *string   `json:"title,omitempty" text:"third-party" doc:"Name of the trip, when known."`
	StartDate     *string   `json:"startDate,omitempty" doc:"First day, when set."`
	EndDate       *string   `json:"endDate,omitempty" doc:"Last day, when set."`
	StageCount    int       `json:"stageCount" doc:"Number of riding days computed so far."`
	TotalDistance float64   `json:"totalDistance" doc:"Kilometres of the riding days (rest days count none)."`
	Status        string    `json:"status" doc:"draft, analyzing or analyzed."`
	IsLocked      bool      `json:"isLocked" doc:"True once the trip has started."`
	CreatedAt     time.Time `json:"createdAt" doc:"When the trip was created."`
	UpdatedAt     time.Time `json:"updatedAt" doc:"When the trip last changed."`
}

// List is one page of trips, newest first.
type List struct {
	Member []Summary `json:"member" doc:"The trips of this page, newest first."`
	registry.PageInfo

	heldAnswer // kept by listing stamp (keptlist.go); abridged to its page
}

// keptHead is what a kept list_trips answer keeps of its value: its
// page, not its trips.
func (l List) keptHead() registry.PageInfo { return l.PageInfo }

// abridgedList is a kept list_trips answer given again: what was held of
// it and its page.
func abridgedList(held heldAnswer, p registry.PageInfo) List {
	return List{PageInfo: p, heldAnswer: held}
}

// Deleted is the answer of a deletion (HTTP answers 204 without it).
type Deleted struct {
	ID      string `json:"id" doc:"The id of the trip that was deleted."`
	Deleted bool   `json:"deleted" doc:"Always true: the trip, its days and its share links are gone."`
}

// TripAlert is an alert about the whole trip, as the digest gives it.
type TripAlert struct {
	Code     string `json:"code" doc:"Stable code; clients dedupe and dismiss by it."`
	Severity string `json:"type" doc:"critical, warning or nudge."`
	Message  string `json:"message" text:"own" doc:"What the alert says, in the trip's language."`
}
