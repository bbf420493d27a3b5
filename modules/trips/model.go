package trips

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/route/pacing"
	"cairn.dev/cairn/modules/route/source"
	"cairn.dev/cairn/registry"
)

// Defaults of the trip settings (model.md).
const (
	DefaultFatigueFactor     = 0.9
	DefaultElevationPenalty  = 50.0
	DefaultMaxDistancePerDay = 80.0
	DefaultAverageSpeed      = 15.0
	DefaultDepartureHour     = 8
)

// AccommodationTypes is the accommodation vocabulary; all are enabled by default.
var AccommodationTypes = []string{"camp_site", "hostel", "alpine_hut", "chalet", "guest_house", "hotel", "wilderness_hut"}

// Trip statuses.
const (
	StatusDraft = "draft" // no stages yet
	StatusReady = "ready" // at least two stages stored
)

// dateLayout is how a calendar day travels and is stored.
const dateLayout = "2006-01-02"

// Trip is a stored trip: its settings and the state the server owns.
type Trip struct {
	bun.BaseModel `bun:"table:trips"`

	ID                        string      `bun:"id,pk"`
	UserID                    string      `bun:"user_id"`
	Title                     *string     `bun:"title"`
	SourceURL                 string      `bun:"source_url"`
	SourceType                *string     `bun:"source_type"`
	StartDate                 *string     `bun:"start_date"`
	EndDate                   *string     `bun:"end_date"`
	FatigueFactor             float64     `bun:"fatigue_factor"`
	ElevationPenalty          float64     `bun:"elevation_penalty"`
	MaxDistancePerDay         float64     `bun:"max_distance_per_day"`
	AverageSpeed              float64     `bun:"average_speed"`
	DepartureHour             int         `bun:"departure_hour"`
	EbikeMode                 bool        `bun:"ebike_mode"`
	EnabledAccommodationTypes TypeList    `bun:"accommodation_types"`
	Locale                    string      `bun:"locale"`
	Status                    string      `bun:"status"`
	ComputationStatus         StatusMap   `bun:"computation_status"`
	Version                   int64       `bun:"version"`
	Generation                int64       `bun:"generation"`
	CompletionAnnounced       bool        `bun:"completion_announced"` // see stepCompleted
	Revision                  int64       `bun:"revision"`             // see Store.touch
	Alerts                    AlertGroups `bun:"alerts"`               // the trip's own alerts (wind, comfort), by computation
	Coverage                  Coverage    `bun:"coverage"`             // why a computation could not look everywhere
	OutOfZone                 bool        `bun:"out_of_zone"`          // part of the route lies outside the local data
	CreatedAt                 time.Time   `bun:"created_at"`
	UpdatedAt                 time.Time   `bun:"updated_at"`
}

// RecordVersion implements registry.Record.
func (t *Trip) RecordVersion() int64 { return t.Version }

// Locked reports whether the trip has started: a start date of today or
// earlier (UTC calendar days). A trip without a start date is never locked.
func Locked(t *Trip, now time.Time) bool {
	if t == nil || t.StartDate == nil {
		return false
	}
	today := now.UTC().Format(dateLayout)
	return *t.StartDate <= today
}

// LockReason is the fixed text of the lock refusal.
const LockReason = "the trip has started (its start date is today or earlier, UTC) and can no longer be edited"

// clone returns a deep copy, so that a merge never touches the stored record.
func (t *Trip) clone() *Trip {
	c := *t
	c.Title = clonePtr(t.Title)
	c.SourceType = clonePtr(t.SourceType)
	c.StartDate = clonePtr(t.StartDate)
	c.EndDate = clonePtr(t.EndDate)
	c.EnabledAccommodationTypes = slices.Clone(t.EnabledAccommodationTypes)
	c.ComputationStatus = StatusMap{}
	for k, v := range t.ComputationStatus {
		c.ComputationStatus[k] = v
	}
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Violations judges the settings of a (merged) trip and lists every broken rule.
func (t *Trip) Violations() []registry.Violation {
	var vs []registry.Violation
	bad := func(field, reason string) { vs = append(vs, registry.Violation{Field: field, Reason: reason}) }

	switch u, err := url.Parse(t.SourceURL); {
	case t.SourceType != nil && *t.SourceType == "gpx_upload" && t.SourceURL == "":
		// an uploaded file has no address
	case strings.TrimSpace(t.SourceURL) == "":
		bad("sourceUrl", "must not be blank")
	case len(t.SourceURL) > 2048:
		bad("sourceUrl", "must be at most 2048 characters")
	case err != nil || u.Scheme != "https" || u.Host == "":
		bad("sourceUrl", "must be an https URL")
	default:
		// Judged at once: an address no source reads would otherwise be
		// accepted and fail in the import, retries later.
		var unsupported *source.UnsupportedError
		if _, err := source.Recognise(t.SourceURL); errors.As(err, &unsupported) {
			bad("sourceUrl", "is not a supported route address ("+string(unsupported.Reason)+"): it must be "+source.Supported)
		}
	}
	var start, end time.Time
	if t.StartDate != nil {
		d, err := time.Parse(dateLayout, *t.StartDate)
		if err != nil {
			bad("startDate", "must be a calendar day (YYYY-MM-DD)")
		}
		start = d
	}
	if t.EndDate != nil {
		d, err := time.Parse(dateLayout, *t.EndDate)
		if err != nil {
			bad("endDate", "must be a calendar day (YYYY-MM-DD)")
		}
		end = d
	}
	if !start.IsZero() && !end.IsZero() && !end.After(start) {
		bad("endDate", "must be after startDate")
	}
	if !start.IsZero() && end.After(start) && pacing.DayCount(start, end) > MaxDays {
		bad("endDate", fmt.Sprintf("must be at most %d days from startDate, the most days a trip may have", MaxDays-1))
	}
	if t.FatigueFactor < 0.5 || t.FatigueFactor > 1 {
		bad("fatigueFactor", "must be between 0.5 and 1.0")
	}
	if t.ElevationPenalty <= 0 || t.ElevationPenalty > 1000 {
		bad("elevationPenalty", "must be greater than 0 and at most 1000")
	}
	if t.MaxDistancePerDay < 30 || t.MaxDistancePerDay > 300 {
		bad("maxDistancePerDay", "must be between 30 and 300 km")
	}
	if t.AverageSpeed < 5 || t.AverageSpeed > 50 {
		bad("averageSpeed", "must be between 5 and 50 km/h")
	}
	if t.DepartureHour < 0 || t.DepartureHour > 23 {
		bad("departureHour", "must be an hour from 0 to 23")
	}
	if len(t.EnabledAccommodationTypes) == 0 {
		bad("enabledAccommodationTypes", "must list at least one type")
	}
	for _, a := range t.EnabledAccommodationTypes {
		if !slices.Contains(AccommodationTypes, a) {
			bad("enabledAccommodationTypes", fmt.Sprintf("%s is not one of %s", registry.Quote(a), strings.Join(AccommodationTypes, ", ")))
		}
	}
	if t.Locale != "en" && t.Locale != "fr" {
		bad("locale", "must be en or fr")
	}
	if t.Title != nil && len([]rune(*t.Title)) > 255 {
		bad("title", "must be at most 255 characters")
	}
	return vs
}

// TypeList is a list of accommodation types stored as JSON text, which both
// engines accept.
type TypeList []string

// Value implements driver.Valuer.
func (l TypeList) Value() (driver.Value, error) {
	b, err := json.Marshal([]string(l))
	return string(b), err
}

// Scan implements sql.Scanner.
func (l *TypeList) Scan(src any) error { return scanJSON(src, (*[]string)(l)) }

// StatusMap maps a computation name to its status (pending, running, done,
// failed, superseded), stored as JSON text.
type StatusMap map[string]string

// Value implements driver.Valuer.
func (m StatusMap) Value() (driver.Value, error) {
	if m == nil {
		m = StatusMap{}
	}
	b, err := json.Marshal(map[string]string(m))
	return string(b), err
}

// Scan implements sql.Scanner.
func (m *StatusMap) Scan(src any) error { return scanJSON(src, (*map[string]string)(m)) }

func scanJSON(src, dst any) error {
	switch v := src.(type) {
	case nil:
		return nil
	case string:
		return json.Unmarshal([]byte(v), dst)
	case []byte:
		return json.Unmarshal(v, dst)
	default:
		return fmt.Errorf("cannot scan %T as JSON text", src)
	}
}
