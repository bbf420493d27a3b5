package trips

import (
	"context"
	"time"

	"cairn.dev/cairn/storage"
)

// AccountData is the trips' part of an account: what the account's
// deletion forgets and its export includes.
type AccountData struct{ store *Store }

// NewAccountData returns the trips' part of accounts over store.
func NewAccountData(store *Store) AccountData { return AccountData{store: store} }

// Section is the export's key for the trips.
func (AccountData) Section() string { return "trips" }

// Forget deletes every trip of the user and the user's listing stamp;
// stages, shares, routes and computations go with the trips (ON DELETE
// CASCADE). It joins the transaction ctx carries.
func (d AccountData) Forget(ctx context.Context, userID string) error {
	_, err := storage.Conn(ctx, d.store.db).NewDelete().Table("trips").Where("user_id = ?", userID).Exec(ctx)
	d.store.changedAll(ctx)
	if err != nil {
		return err
	}
	// The listing stamp goes too: it names the account. Nobody lists a
	// deleted account's trips again, so no listing kept before needs it.
	_, err = storage.Conn(ctx, d.store.db).NewDelete().Table("trip_listing_stamps").Where("user_id = ?", userID).Exec(ctx)
	return err
}

// ExportedTrip is one trip in an account's export.
type ExportedTrip struct {
	ID          string           `json:"id"`
	Title       *string          `json:"title"`
	SourceURL   string           `json:"sourceUrl"`
	SourceType  *string          `json:"sourceType"`
	StartDate   *string          `json:"startDate"`
	EndDate     *string          `json:"endDate"`
	Locale      string           `json:"locale"`
	CreatedAt   time.Time        `json:"createdAt"`
	UpdatedAt   time.Time        `json:"updatedAt"`
	Preferences ExportedSettings `json:"preferences"`
	Stages      []ExportedStage  `json:"stages"`
}

// ExportedSettings are a trip's settings in an export.
type ExportedSettings struct {
	FatigueFactor             float64  `json:"fatigueFactor"`
	ElevationPenalty          float64  `json:"elevationPenalty"`
	EbikeMode                 bool     `json:"ebikeMode"`
	DepartureHour             int      `json:"departureHour"`
	MaxDistancePerDay         float64  `json:"maxDistancePerDay"`
	AverageSpeed              float64  `json:"averageSpeed"`
	EnabledAccommodationTypes []string `json:"enabledAccommodationTypes"`
}

// ExportedStage is one day of a trip in an export.
type ExportedStage struct {
	DayNumber int     `json:"dayNumber"`
	Label     *string `json:"label"`
	Distance  float64 `json:"distance"`
	Elevation float64 `json:"elevation"`
}

// Export lists the user's trips, oldest first, with their days.
func (d AccountData) Export(ctx context.Context, userID string) (any, error) {
	db := storage.Conn(ctx, d.store.db)
	var ts []Trip
	if err := db.NewSelect().Model(&ts).Where("user_id = ?", userID).Order("created_at ASC", "id ASC").Scan(ctx); err != nil && !storage.NoRows(err) {
		return nil, err
	}
	out := make([]ExportedTrip, 0, len(ts))
	for _, t := range ts {
		var stages []struct {
			Position int     `bun:"position"`
			Label    *string `bun:"label"`
			Distance float64 `bun:"distance"`
			Ascent   float64 `bun:"ascent"`
		}
		if err := db.NewSelect().Table("stages").Column("position", "label", "distance", "ascent").
			Where("trip_id = ?", t.ID).Order("position").Scan(ctx, &stages); err != nil && !storage.NoRows(err) {
			return nil, err
		}
		e := ExportedTrip{ID: t.ID, Title: t.Title, SourceURL: t.SourceURL, SourceType: t.SourceType,
			StartDate: t.StartDate, EndDate: t.EndDate, Locale: t.Locale, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
			Preferences: ExportedSettings{FatigueFactor: t.FatigueFactor, ElevationPenalty: t.ElevationPenalty,
				EbikeMode: t.EbikeMode, DepartureHour: t.DepartureHour, MaxDistancePerDay: t.MaxDistancePerDay,
				AverageSpeed: t.AverageSpeed, EnabledAccommodationTypes: append([]string{}, t.EnabledAccommodationTypes...)},
			Stages: []ExportedStage{}}
		for i, s := range stages {
			e.Stages = append(e.Stages, ExportedStage{DayNumber: i + 1, Label: s.Label, Distance: s.Distance, Elevation: s.Ascent})
		}
		out = append(out, e)
	}
	return out, nil
}
