package trips

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"cairn.dev/cairn/metrics"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

var readSources = []migrations.Source{accounts.Migrations, Migrations}

// readFixture stores a user and trips of its own through the store's
// writes, and answers the user's id.
func readFixture(t testing.TB, db *bun.DB, email string) string {
	t.Helper()
	id := "user-" + email
	_, err := db.NewRaw("INSERT INTO users (id, email, locale, created_at) VALUES (?, ?, 'en', ?)",
		id, email, time.Now().UTC()).Exec(context.Background())
	require.NoError(t, err)
	return id
}

func newTrip(userID, id, title string, created time.Time, start, end *string) *Trip {
	return &Trip{ID: id, UserID: userID, Title: &title, SourceURL: "https://www.strava.com/routes/1",
		StartDate: start, EndDate: end, FatigueFactor: 0.9, ElevationPenalty: 50, MaxDistancePerDay: 80,
		AverageSpeed: 15, DepartureHour: 8, EnabledAccommodationTypes: TypeList{"camp_site", "hotel"},
		Locale: "en", Status: StatusReady, ComputationStatus: StatusMap{ComputeStages: StatusDone, ComputeTerrain: StatusFailed},
		Version: 4, Generation: 2, CreatedAt: created, UpdatedAt: created.Add(time.Minute)}
}

// fullStages are days carrying everything a day can: geometry, alerts with
// their places and actions, candidates, a chosen place, a label, a rest day.
func fullStages(tripID string) []Stage {
	lat := 45.1
	name := "Camping du Lac"
	label := "Over the pass"
	line := Points{{Lat: 45, Lon: 6, Ele: 400}, {Lat: 45.1, Lon: 6.2, Ele: 900}, {Lat: 45.2, Lon: 6.4, Ele: 500}}
	chosen := &Accommodation{Name: name, Type: "camp_site", Lat: 45.2, Lon: 6.4, Source: "osm"}
	return []Stage{
		{ID: tripID + "-1", TripID: tripID, Position: 0, Distance: 61.24, Ascent: 812.5, Descent: 311.4,
			StartPoint: Point(line[0]), EndPoint: Point(line[2]), Geometry: line, Label: &label,
			Alerts: AlertGroups{ComputeTerrain: {{Code: "steep_climb", Severity: "warning", Message: "a long climb", Lat: &lat, Lon: &lat,
				Action: &ActionRecord{Kind: "navigate", Label: "Show", Payload: map[string]any{"lat": lat}}}}},
			Accommodations: &AccommodationList{*chosen}, Selected: chosen},
		{ID: tripID + "-2", TripID: tripID, Position: 1, StartPoint: Point(line[2]), EndPoint: Point(line[2]),
			Geometry: Points{line[2]}, IsRestDay: true, Alerts: AlertGroups{ComputeTerrain: {}}},
		{ID: tripID + "-3", TripID: tripID, Position: 2, Distance: 48.96, Ascent: 120.49, Descent: 700.5,
			StartPoint: Point(line[2]), EndPoint: Point(line[0]), Geometry: Points{line[2], line[1], line[0]}},
	}
}

// The digest read selects only its columns; it must answer exactly what
// the full read of the same days answers.
func TestReadsAnswerWhatTheFullReadsAnswer(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		user := readFixture(t, db, "reader@example.com")
		start, end := "2031-05-01", "2031-05-03"
		tr := newTrip(user, "trip-1", "Alps", time.Date(2026, 4, 1, 9, 30, 15, 123456000, time.UTC), &start, &end)
		require.NoError(t, s.Insert(ctx, tr))
		require.NoError(t, s.ReplaceStages(ctx, tr.ID, fullStages(tr.ID)))

		var want Trip
		require.NoError(t, db.NewSelect().Model(&want).Where("id = ?", tr.ID).Scan(ctx))
		got, err := s.Get(ctx, tr.ID)
		require.NoError(t, err)
		require.True(t, want.CreatedAt.Equal(got.CreatedAt) && want.UpdatedAt.Equal(got.UpdatedAt))
		got.CreatedAt, got.UpdatedAt = want.CreatedAt, want.UpdatedAt
		require.Equal(t, &want, got)

		brief, err := s.Brief(ctx, tr.ID)
		require.NoError(t, err)
		require.Equal(t, stateOf(&want, time.Now()), stateOf(brief, time.Now()))

		full, err := s.Stages(ctx, tr.ID)
		require.NoError(t, err)
		digested, days, code, err := s.Digest(ctx, tr.ID)
		require.NoError(t, err)
		require.Empty(t, code, "not shared")
		digested.CreatedAt, digested.UpdatedAt = want.CreatedAt, want.UpdatedAt
		require.Equal(t, &want, digested)
		require.Len(t, days, len(full))
		for i := range full {
			require.Equal(t, dayOf(&full[i]), days[i].Day, "day %d", i+1)
		}
		// Dates from the start date; the start only where it is news.
		require.Equal(t, []DigestDay{
			{Day: days[0].Day, Date: "2031-05-01", Start: &LatLon{45, 6}, End: LatLon{45.2, 6.4}},
			{Day: days[1].Day, Date: "2031-05-02", End: LatLon{45.2, 6.4}},
			{Day: days[2].Day, Date: "2031-05-03", End: LatLon{45, 6}},
		}, days)
		require.Equal(t, "Camping du Lac", *days[0].Sleep)
		require.Equal(t, AlertCount{Warning: 1}, *days[0].Alerts)
		require.Equal(t, AlertCount{}, *days[1].Alerts, "analysed, nothing found: none of any kind")
		require.Nil(t, days[2].Alerts, "never analysed: absent")

		bare := newTrip(user, "trip-2", "No days yet", time.Now().UTC(), nil, nil)
		require.NoError(t, s.Insert(ctx, bare))
		digested, days, _, err = s.Digest(ctx, bare.ID)
		require.NoError(t, err)
		require.Equal(t, bare.ID, digested.ID)
		require.Empty(t, days)

		digest := func(ctx context.Context, id string) (*Trip, error) {
			tr, _, _, err := s.Digest(ctx, id)
			return tr, err
		}
		for _, read := range []func(context.Context, string) (*Trip, error){s.Get, s.Brief, digest} {
			_, err := read(ctx, "00000000-0000-0000-0000-000000000000")
			require.Equal(t, registry.KindNotFound, registry.AsError(err).Kind)
		}
	})
}

func TestListCountsRidingDaysAndPages(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		user := readFixture(t, db, "lister@example.com")
		other := readFixture(t, db, "other@example.com")
		at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
		may, june := "2031-05-01", "2031-06-10"
		for i, title := range []string{"Alps 100%", "Jura", "Vosges_loop", "Alpine lakes", "Corsica"} {
			start := &may
			if i%2 == 1 {
				start = &june
			}
			tr := newTrip(user, fmt.Sprintf("trip-%d", i), title, at.Add(time.Duration(i)*time.Hour), start, nil)
			if i == 1 {
				tr.ComputationStatus[ComputeAccommodations] = StatusRunning
			}
			require.NoError(t, s.Insert(ctx, tr))
			if i == 0 {
				require.NoError(t, s.ReplaceStages(ctx, tr.ID, fullStages(tr.ID)))
			}
		}
		require.NoError(t, s.Insert(ctx, newTrip(other, "theirs", "Alps", at, &may, nil)))

		cases := []struct {
			name      string
			filter    Filter
			page, per int
			wantIDs   []string
			wantTotal int
		}{
			{"newest first", Filter{}, 1, 20, []string{"trip-4", "trip-3", "trip-2", "trip-1", "trip-0"}, 5},
			{"a full page counts the rest", Filter{}, 1, 2, []string{"trip-4", "trip-3"}, 5},
			{"a short last page", Filter{}, 3, 2, []string{"trip-0"}, 5},
			{"past the end", Filter{}, 4, 2, nil, 5},
			{"title, case-insensitive", Filter{Title: "alp"}, 1, 20, []string{"trip-3", "trip-0"}, 2},
			{"percent matches itself", Filter{Title: "100%"}, 1, 20, []string{"trip-0"}, 1},
			{"underscore matches itself", Filter{Title: "s_l"}, 1, 20, []string{"trip-2"}, 1},
			{"start on or after", Filter{StartFrom: "2031-06-01"}, 1, 20, []string{"trip-3", "trip-1"}, 2},
			{"malformed date ignored", Filter{StartFrom: "June"}, 1, 1, []string{"trip-4"}, 5},
			{"nothing matches", Filter{Title: "Pyrenees"}, 1, 20, nil, 0},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				rows, total, err := s.List(ctx, user, tc.filter, (tc.page-1)*tc.per, tc.per)
				require.NoError(t, err)
				var ids []string
				for _, r := range rows {
					ids = append(ids, r.Trip.ID)
				}
				require.Equal(t, tc.wantIDs, ids)
				require.Equal(t, tc.wantTotal, total)
			})
		}

		rows, _, err := s.List(ctx, user, Filter{Title: "100%"}, 0, 20)
		require.NoError(t, err)
		require.Len(t, rows, 1)
		require.Equal(t, 2, rows[0].StageCount, "the rest day is not a riding day")
		require.InDelta(t, 61.24+48.96, rows[0].TotalDistance, 1e-9)
		require.Equal(t, "Alps 100%", *rows[0].Trip.Title)
		require.Equal(t, StatusReady, rows[0].Trip.Status)
		require.Equal(t, "analyzed", listStatus(&rows[0].Trip), "settled statuses, days stored")
		rows, _, err = s.List(ctx, user, Filter{Title: "Jura"}, 0, 20)
		require.NoError(t, err)
		require.Zero(t, rows[0].StageCount)
		require.Zero(t, rows[0].TotalDistance)
		require.Equal(t, "analyzing", listStatus(&rows[0].Trip), "a computation still running")
	})
}

// A remembered owner never changes an answer: a trip deleted meanwhile is
// read as not found, and a refusal is asked again.
func TestOwnsForRead(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		user := readFixture(t, db, "owner@example.com")
		other := readFixture(t, db, "stranger@example.com")
		id := "0190a6f0-0000-7000-8000-000000000001"

		owns, err := s.OwnsForRead(ctx, user, id)
		require.NoError(t, err)
		require.False(t, owns, "no such trip yet")
		require.NoError(t, s.Insert(ctx, newTrip(user, id, "Mine", time.Now().UTC(), nil, nil)))
		owns, err = s.OwnsForRead(ctx, user, id)
		require.NoError(t, err)
		require.True(t, owns, "a no is not remembered")
		owns, err = s.OwnsForRead(ctx, other, id)
		require.NoError(t, err)
		require.False(t, owns)

		require.NoError(t, s.Delete(ctx, id))
		owns, err = s.OwnsForRead(ctx, user, id)
		require.NoError(t, err)
		require.True(t, owns, "remembered")
		_, _, _, err = s.Digest(ctx, id)
		require.Equal(t, registry.KindNotFound, registry.AsError(err).Kind, "the read itself answers not found")
		_, err = s.Brief(ctx, id)
		require.Equal(t, registry.KindNotFound, registry.AsError(err).Kind)
		owns, err = s.Owns(ctx, user, id)
		require.NoError(t, err)
		require.False(t, owns, "writes ask the database every time")
	})
}

// A remembered digest gives each caller days of its own: what one caller
// does with them is not what the next one reads.
func TestRememberedDaysAreEachCallers(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		s.SetCheckEvery(time.Hour)
		user := readFixture(t, db, "keeper@example.com")
		start, end := "2031-05-01", "2031-05-03"
		tr := newTrip(user, "0190a6f0-0000-7000-8000-000000000003", "Jura", time.Now().UTC(), &start, &end)
		require.NoError(t, s.Insert(ctx, tr))
		require.NoError(t, s.ReplaceStages(ctx, tr.ID, fullStages(tr.ID)))
		_, first, _, err := s.Digest(ctx, tr.ID)
		require.NoError(t, err)
		want := slices.Clone(first)
		first[0].Distance = -1
		_, again, _, err := s.Digest(ctx, tr.ID)
		require.NoError(t, err)
		require.Equal(t, want, again)
	})
}

// get_trip's owner check reads the digest the handler then reads: the
// answers are those of Owns, and the digest is remembered by the check.
func TestOwnsDigest(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		user := readFixture(t, db, "holder@example.com")
		other := readFixture(t, db, "passer@example.com")
		id := "0190a6f0-0000-7000-8000-000000000002"
		require.NoError(t, s.Insert(ctx, newTrip(user, id, "Mine", time.Now().UTC(), nil, nil)))
		tests := []struct {
			name     string
			user, id string
			owns     bool
		}{
			{"the owner", user, id, true},
			{"another user", other, id, false},
			{"no such trip", user, "0190a6f0-0000-7000-8000-0000000000ff", false},
			{"not an id", user, "../etc", false},
		}
		for _, tt := range tests {
			owns, err := s.OwnsDigest(ctx, tt.user, tt.id)
			require.NoError(t, err, tt.name)
			require.Equal(t, tt.owns, owns, tt.name)
			want, err := s.Owns(ctx, tt.user, tt.id)
			require.NoError(t, err)
			require.Equal(t, want, owns, "%s: as Owns answers", tt.name)
		}
		s.mu.Lock()
		_, held := s.digests.Get(id)
		s.mu.Unlock()
		require.True(t, held, "the check leaves the digest remembered for the read")

		require.NoError(t, s.Delete(ctx, id))
		owns, err := s.OwnsDigest(ctx, user, id)
		require.NoError(t, err)
		require.False(t, owns, "a deleted trip is nobody's")
	})
}

// BenchmarkDigest is get_trip's read of a three-day trip whose days carry
// what an imported route gives them: a few hundred points of geometry each
// and a list of accommodation candidates. cpu-ns/op is the process's CPU
// per read (on PostgreSQL, the server's own backend not included).
func BenchmarkDigest(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run("engine="+engine, func(b *testing.B) {
			s, id := benchTrip(b, engine, importedStages(benchTripID, 3, 600, 30))
			measureReads(b, 3, func() ([]DigestDay, error) {
				_, days, _, err := s.Digest(context.Background(), id)
				return days, err
			})
		})
	}
}

// BenchmarkDigestMiss is the read of a digest that is not remembered
// (most of get_trip's reads over many trips): the trip, its share and its
// days, from the engine, for 3 and 16 days.
func BenchmarkDigestMiss(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, n := range []int{3, 16} {
			b.Run(fmt.Sprintf("engine=%s/days=%d", engine, n), func(b *testing.B) {
				s, id := benchTrip(b, engine, importedStages(benchTripID, n, 100, 5))
				measureReads(b, n, func() ([]DigestDay, error) {
					d, err := s.readDigest(context.Background(), id)
					if err != nil {
						return nil, err
					}
					return d.lines()
				})
			})
		}
	}
}

const benchTripID = "0190a6f0-0000-7000-8000-00000000000b"

// benchTrip is a store on engine holding one trip with days.
func benchTrip(b *testing.B, engine string, days []Stage) (*Store, string) {
	var db *bun.DB
	if engine == "sqlite" {
		db, _ = storagetest.SQLiteFile(b, readSources...)
	} else {
		db = storagetest.Postgres(b, readSources...)
	}
	return tripWith(b, db, days)
}

// tripWith is a store on db holding one trip, of a user of its own, with
// days.
func tripWith(tb testing.TB, db *bun.DB, days []Stage) (*Store, string) {
	tb.Helper()
	ctx := context.Background()
	s := NewStore(db)
	user := readFixture(tb, db, "bench@example.com")
	start, end := "2031-05-01", "2031-05-03"
	tr := newTrip(user, benchTripID, "Bench", time.Now().UTC(), &start, &end)
	require.NoError(tb, s.Insert(ctx, tr))
	require.NoError(tb, s.ReplaceStages(ctx, tr.ID, days))
	return s, tr.ID
}

// measureReads runs read, which must give n days, and reports the
// process's CPU per read beside the wall clock.
func measureReads(b *testing.B, n int, read func() ([]DigestDay, error)) {
	measureCPU(b, func() error {
		if days, err := read(); err != nil || len(days) != n {
			return fmt.Errorf("%d days, not %d: %v", len(days), n, err)
		}
		return nil
	})
}

// measureCPU runs run until the benchmark ends, failing at its first
// error, and reports the process's CPU per run beside the wall clock.
func measureCPU(b *testing.B, run func() error) {
	b.ReportAllocs()
	began := metrics.ProcessCPU()
	for b.Loop() {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(metrics.ProcessCPU()-began)/float64(b.N), "cpu-ns/op")
}

// importedStages are n days of points points of geometry each, with
// candidates accommodation candidates, the first one chosen.
func importedStages(tripID string, n, points, candidates int) []Stage {
	out := make([]Stage, n)
	for d := range out {
		line := make(Points, points)
		for i := range line {
			line[i] = geo.Point{Lat: 45 + float64(i)*1e-3, Lon: 6 + float64(d) + float64(i)*1e-3, Ele: 400 + float64(i%50)}
		}
		list := make(AccommodationList, candidates)
		for i := range list {
			list[i] = Accommodation{Name: fmt.Sprintf("Camping %d", i), Type: "camp_site", Lat: line[points-1].Lat, Lon: line[points-1].Lon, Source: "osm"}
		}
		chosen := list[0]
		out[d] = Stage{ID: fmt.Sprintf("%s-%d", tripID, d), TripID: tripID, Position: d, Distance: 60, Ascent: 800, Descent: 700,
			StartPoint: Point(line[0]), EndPoint: Point(line[points-1]), Geometry: line, Alerts: AlertGroups{},
			Accommodations: &list, Selected: &chosen}
	}
	return out
}

// A day's chosen accommodation is read without a decoder when spelt as
// the store writes it, and through encoding/json otherwise: its name is
// the decoder's either way, nil without a choice.
func TestChosenNameReadsAsTheDecoder(t *testing.T) {
	t.Parallel()
	written, err := json.Marshal(Accommodation{ID: "osm:1", Name: "Camping du Lac", Type: "camp_site"})
	require.NoError(t, err)
	unnamed, err := json.Marshal(Accommodation{ID: "osm:2", Type: "hotel"})
	require.NoError(t, err)
	for _, give := range []string{string(written), string(unnamed), `{"id":"a","name":"b"}`, `{"name":"b","id":"a"}`,
		`{"id":"a","name":"é"}`, `{"id":"a","name":"\u00e9"}`, `{"id":"a","name":"b\"c"}`, `{"id":"a"}`, `{ "id":"a","name":"b"}`,
		`{"id":"a","name":"b"`, `{"id":"a","name":"b"x`, `{}`, `[]`, `{"id":"a","name":1}`} {
		var want struct {
			Name string `json:"name"`
		}
		wantErr := json.Unmarshal([]byte(give), &want)
		got, err := chosenOf([]byte(give))
		require.Equal(t, wantErr != nil, err != nil, give)
		if wantErr == nil {
			require.NotNil(t, got, give)
			require.Equal(t, want.Name, *got, give)
		}
	}
	for _, none := range []string{"null"} {
		got, err := chosenOf([]byte(none))
		require.NoError(t, err)
		require.Nil(t, got)
	}
	got, err := chosenOf(nil)
	require.NoError(t, err)
	require.Nil(t, got, "NULL is no choice")
}

// The store's lists and maps of strings are read without a decoder when
// spelt as the store writes them, and through encoding/json otherwise:
// the answer is the decoder's either way.
func TestStringListAndMapReadAsTheDecoder(t *testing.T) {
	t.Parallel()
	lists := []string{`[]`, `["hotel"]`, `["hotel","camp_site"]`, `[ "hotel" ]`, `["h\"otel"]`, `["é"]`,
		`["a",]`, `["a"`, `[1]`, `null`, `["\u00e9"]`}
	for _, give := range lists {
		var want TypeList
		wantErr := json.Unmarshal([]byte(give), &want)
		got, err := stringList([]byte(give))
		require.Equal(t, wantErr != nil, err != nil, give)
		if wantErr == nil {
			require.Equal(t, want, got, give)
		}
	}
	maps := []string{`{}`, `{"stages":"done"}`, `{"a":"1","b":"2"}`, `{ "a":"1"}`, `{"a":"\n"}`, `{"a":1}`,
		`{"a":"1",}`, `{"a"}`, `{"a":"1"`, `null`, `{"a":"1","a":"2"}`}
	for _, give := range maps {
		var want StatusMap
		wantErr := json.Unmarshal([]byte(give), &want)
		got, err := stringMap([]byte(give))
		require.Equal(t, wantErr != nil, err != nil, give)
		if wantErr == nil {
			require.Equal(t, want, got, give)
		}
	}
}

// The engine reads the chosen accommodation's name out of its JSON: a
// choice without a name is an empty name, no choice none, on both engines.
func TestDigestReadsTheChosenName(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		user := readFixture(t, db, "chooser@example.com")
		tr := newTrip(user, "trip-chosen", "Chosen", time.Now().UTC(), nil, nil)
		require.NoError(t, s.Insert(ctx, tr))
		stages := fullStages(tr.ID)
		stages[0].Selected = &Accommodation{Name: `Gîte "Le Col" & co`, Type: "guest_house"}
		stages[1].Selected = &Accommodation{Type: "camp_site"}
		stages[2].Selected = nil
		require.NoError(t, s.ReplaceStages(ctx, tr.ID, stages))
		_, days, _, err := s.Digest(ctx, tr.ID)
		require.NoError(t, err)
		require.Len(t, days, 3)
		for i := range stages {
			require.Equal(t, dayOf(&stages[i]).Sleep, days[i].Sleep, "day %d", i+1)
		}
	})
}

// TestDigestGivesPlacesAndTheActiveShare: a day that does not start where
// the one before ended says where it starts, to 5 decimals; the digest
// gives the code of the trip's active share, and none once it is revoked.
func TestDigestGivesPlacesAndTheActiveShare(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		user := readFixture(t, db, "placer@example.com")
		tr := newTrip(user, "trip-placed", "Placed", time.Now().UTC(), nil, nil)
		require.NoError(t, s.Insert(ctx, tr))
		stages := fullStages(tr.ID)
		stages[2].StartPoint = Point{Lat: 45.123456789, Lon: -6.000004, Ele: 10}
		require.NoError(t, s.ReplaceStages(ctx, tr.ID, stages))

		old := newShare(tr.ID)
		revoked := time.Now().UTC()
		old.DeletedAt = &revoked
		_, err := db.NewInsert().Model(old).Exec(ctx)
		require.NoError(t, err)
		_, days, code, err := s.Digest(ctx, tr.ID)
		require.NoError(t, err)
		require.Empty(t, code, "a revoked share is no share")
		require.Len(t, days, 3)
		for i, d := range days {
			require.Empty(t, d.Date, "day %d: no start date, no date", i+1)
		}
		require.Nil(t, days[1].Start, "day 2 starts where day 1 ended")
		require.Equal(t, &LatLon{45.12346, -6}, days[2].Start, "day 3 does not: it says where it starts")

		active := newShare(tr.ID)
		_, err = db.NewInsert().Model(active).Exec(ctx)
		require.NoError(t, err)
		require.NoError(t, s.touch(ctx, tr.ID), "as share_trip does after its insert")
		_, again, code, err := s.Digest(ctx, tr.ID)
		require.NoError(t, err)
		require.Equal(t, active.ShortCode, code)
		require.Equal(t, days, again, "the share's join repeats no day")
	})
}

// TestRememberedDigestFollowsEveryWrite: a digest is remembered at the
// trip's revision, and every write to the trip, its days or its share moves
// the revision on, so the next read answers what the database holds. Each
// write is checked alone, after a read that remembered the digest before
// it; a write that left the revision alone would answer the old digest.
func TestRememberedDigestFollowsEveryWrite(t *testing.T) {
	t.Parallel()
	// Checked on every read, the revision alone decides; never checked in
	// the test's time, the forgetting of each write alone does.
	for _, every := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprintf("checked every %v", every), func(t *testing.T) {
			t.Parallel()
			rememberedDigestFollowsEveryWrite(t, every)
		})
	}
}

// saveAlert saves an outcome of the terrain with one alert of sev, saying
// message, on the trip's second day.
func saveAlert(ctx context.Context, s *Store, tripID string, sev alerts.Severity, message string) error {
	days, err := s.Stages(ctx, tripID)
	if err != nil {
		return err
	}
	found := make([][]alerts.Alert, len(days))
	found[1] = []alerts.Alert{{Code: alerts.CodeSteepGradient, Severity: sev, Message: message, StageIndex: 1}}
	return storage.Tx{DB: s.db}.InTx(ctx, func(ctx context.Context) error {
		return s.saveOutcome(ctx, tripID, ComputeTerrain, days, outcome{days: found})
	})
}

func rememberedDigestFollowsEveryWrite(t *testing.T, every time.Duration) {
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		s.SetCheckEvery(every)
		trips := &Trips{store: s, details: newKeptDetails()}
		user := readFixture(t, db, "writer@example.com")
		start, end := "2031-05-01", "2031-05-03"
		tr := newTrip(user, "00000000-0000-7000-8000-000000000001", "Alps", time.Now().UTC(), &start, &end)
		require.NoError(t, s.Insert(ctx, tr))
		require.NoError(t, s.ReplaceStages(ctx, tr.ID, fullStages(tr.ID)))
		call := &registry.Call{Now: time.Now(), Vars: map[string]string{"id": tr.ID}}

		// fresh is the digest as the join reads it, past what is remembered.
		fresh := func() digest {
			d, err := s.joinDigest(ctx, tr.ID)
			require.NoError(t, err)
			return d
		}
		// kept is the days the trip's row keeps, and whether they were
		// written at its revision.
		kept := func() ([]DigestDay, bool) {
			var (
				revision int64
				at       sql.NullInt64
				stored   []byte
			)
			require.NoError(t, db.NewRaw("SELECT revision, days_digest_revision, days_digest FROM trips WHERE id = ?", tr.ID).
				Scan(ctx, &revision, &at, &stored))
			if !at.Valid || at.Int64 != revision {
				return nil, false
			}
			days, err := decodeDays(stored)
			require.NoError(t, err)
			return days, true
		}
		// answered is get_trip's answer at now, whose kept JSON must be
		// what json.Marshal gives for it.
		answered := func(now time.Time, what string) Detail {
			// The owner check the guards run first reads and remembers
			// the digest the answer is then built from.
			owns, err := s.OwnsDigest(ctx, user, tr.ID)
			require.NoError(t, err)
			require.True(t, owns)
			d, err := trips.Detail(ctx, tr.ID, now)
			require.NoError(t, err)
			fresh, err := (&Trips{store: s}).Detail(ctx, tr.ID, now) // keeps no answer
			require.NoError(t, err)
			want, err := json.Marshal(fresh)
			require.NoError(t, err)
			require.Equal(t, string(want), string(d.EncodedJSON()), "%s: get_trip's kept answer is the answer read", what)
			return d
		}
		tests := everyWrite(t, s, trips, tr, call)
		for _, tt := range tests {
			before, days, code, err := s.Digest(ctx, tr.ID)
			require.NoError(t, err)
			remembered := digest{trip: before, days: days, code: code}
			require.NoError(t, tt.write(), tt.name)
			want := fresh()
			require.NotEqual(t, remembered, want, "%s changes what the digest reads", tt.name)
			keptDays, current := kept()
			require.True(t, current, "after %s the trip's row keeps its days at its revision", tt.name)
			require.Equal(t, want.days, keptDays, "after %s the trip's row keeps the days the join reads", tt.name)
			var listed, counted struct {
				Days     int     `bun:"days"`
				Distance float64 `bun:"distance"`
			}
			require.NoError(t, db.NewRaw("SELECT listed_days AS days, listed_distance AS distance FROM trips WHERE id = ?", tr.ID).Scan(ctx, &listed))
			require.NoError(t, db.NewRaw("SELECT "+countedDays+" AS days, "+summedDistance+" AS distance FROM trips AS t WHERE t.id = ?", tr.ID).Scan(ctx, &counted))
			require.Equal(t, counted, listed, "after %s the trip's row keeps what the listing counts of its days", tt.name)
			got, days, code, err := s.Digest(ctx, tr.ID)
			require.NoError(t, err)
			require.Equal(t, want, digest{trip: got, days: days, code: code}, "after %s", tt.name)
			answered(call.Now, "after "+tt.name)
		}

		// The answer is kept: read again at the same revision it is not
		// encoded again, until the trip's start date locks it.
		first, again := answered(call.Now, "a first read"), answered(call.Now, "a second read")
		require.Same(t, &first.EncodedJSON()[0], &again.EncodedJSON()[0], "the second read answers the kept bytes")
		started := answered(time.Date(2031, 6, 1, 12, 0, 0, 0, time.UTC), "on the start date")
		require.True(t, started.IsLocked)

		// A write made outside the store moves the revision and keeps no
		// days: a read joins the days afresh.
		_, err := db.ExecContext(ctx, "UPDATE stages SET distance = 77 WHERE trip_id = ? AND position = 0", tr.ID)
		require.NoError(t, err)
		_, err = db.ExecContext(ctx, "UPDATE trips SET revision = revision + 1 WHERE id = ?", tr.ID)
		require.NoError(t, err)
		_, current := kept()
		require.False(t, current)
		outside, err := s.readDigest(ctx, tr.ID)
		require.NoError(t, err)
		require.Equal(t, 77.0, outside.days[0].Distance, "the kept days are behind the revision: the days are read")
		rows, _, err := s.List(ctx, user, Filter{}, 0, 20)
		require.NoError(t, err)
		require.Len(t, rows, 1)
		var summed float64
		require.NoError(t, db.NewRaw("SELECT SUM(distance) FROM stages WHERE trip_id = ? AND NOT is_rest_day", tr.ID).Scan(ctx, &summed))
		require.InDelta(t, summed, rows[0].TotalDistance, 1e-9, "the listing counts the days of a trip whose row is behind")
		s.forget(tr.ID) // a remembered digest sees such a write only within checkEvery

		// A read inside a transaction that is rolled back is not remembered.
		_, _, _, err = s.Digest(ctx, tr.ID)
		require.NoError(t, err)
		stored := fresh()
		rollback := errors.New("rolled back")
		err = storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
			days := fullStages(tr.ID)
			days[0].Distance = 99
			require.NoError(t, s.ReplaceStages(ctx, tr.ID, days))
			_, inside, _, err := s.Digest(ctx, tr.ID)
			require.NoError(t, err)
			require.Equal(t, 99.0, inside[0].Distance, "the transaction reads its own write")
			d, err := trips.Detail(ctx, tr.ID, call.Now)
			require.NoError(t, err)
			require.Equal(t, 99.0, d.Days[0].Distance)
			require.Nil(t, d.EncodedJSON(), "an answer read inside a transaction is not kept")
			return rollback
		})
		require.ErrorIs(t, err, rollback)
		got, days, code, err := s.Digest(ctx, tr.ID)
		require.NoError(t, err)
		require.Equal(t, stored, digest{trip: got, days: days, code: code})
		require.NotEqual(t, 99.0, answered(call.Now, "after the rollback").Days[0].Distance)
		// The same write committed takes the revision the rolled back one
		// had: its answer is its own.
		committed := fullStages(tr.ID)
		committed[0].Distance = 98
		require.NoError(t, s.ReplaceStages(ctx, tr.ID, committed))
		require.Equal(t, 98.0, answered(call.Now, "after the same write committed").Days[0].Distance)

		// A deleted trip is not found, though its digest was remembered.
		require.NoError(t, s.Delete(ctx, tr.ID))
		_, _, _, err = s.Digest(ctx, tr.ID)
		require.Equal(t, registry.KindNotFound, registry.AsError(err).Kind)
	})
}

// dispatched records what was dispatched, and runs nothing: the tests read
// what was stored.
type dispatched struct{ names []string }

func (d *dispatched) Dispatch(_ context.Context, _ string, _ int64, names ...string) error {
	d.names = append(d.names, names...)
	return nil
}

// TestHotReadsUseTheirIndexes reads the plan of every hot read on both
// engines: the owner check and the revision by the trip's key, the digest's
// share and days by their trip, the listing by the user's newest-first
// index with no sort of its own, and its counts of days by their trip. No
// hot read scans a table. On PostgreSQL sequential scans are disabled for
// the plan, so one appears only where no index can serve.
func TestHotReadsUseTheirIndexes(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		user := readFixture(t, db, "planner@example.com")
		tr := newTrip(user, "00000000-0000-7000-8000-0000000000aa", "Planned", time.Now().UTC(), nil, nil)
		require.NoError(t, s.Insert(ctx, tr))
		require.NoError(t, s.ReplaceStages(ctx, tr.ID, fullStages(tr.ID)))
		type planned struct {
			name      string
			stmt      *storage.Stmt
			args      []any
			noSorting bool
		}
		tests := []planned{
			{"owner check", s.owns, []any{tr.ID, user}, false},
			{"revision", s.reads.revision, []any{tr.ID}, false},
			{"digest", s.reads.digest, []any{tr.ID}, false},
			{"address", s.reads.state, []any{tr.ID}, false},
			{"kept days' revision", s.reads.keptAt, []any{tr.ID}, false},
			{"keeping the days", s.reads.keep, []any{[]byte{1}, int64(1), tr.ID, int64(1)}, false},
			{"listing stamp", s.reads.listingStamp, []any{user}, false},
			{"stamping the owner", s.reads.stampOwner, stampArgs(s, tr.ID), false},
		}
		// Every combination of the listing's filters, each condition given
		// an argument of its own.
		for given := range filters {
			filter := []any{user}
			for i, arg := range []any{"%planned%", "2031-05-01", "2031-05-30"} {
				if given&(1<<i) != 0 {
					filter = append(filter, arg)
				}
			}
			tests = append(tests,
				planned{fmt.Sprintf("listing (filters %03b)", given), s.reads.page[given], append(filter, 20, 0), true},
				planned{fmt.Sprintf("listing's total (filters %03b)", given), s.reads.count[given], filter, false})
		}
		for _, tt := range tests {
			plan := explain(t, db, tt.stmt.SQL(), tt.args)
			for _, table := range []string{"trips", "stages", "trip_shares", "trip_listing_stamps"} {
				require.NotRegexp(t, `(Seq Scan on|SCAN) `+table+`\b|(Seq Scan on \w+|SCAN) (AS )?(t|s|sh)\b`, plan, "%s scans %s:\n%s", tt.name, table, plan)
			}
			if tt.noSorting {
				require.NotRegexp(t, `Sort|TEMP B-TREE`, plan, "%s sorts what its index orders:\n%s", tt.name, plan)
			}
		}
	})
}

// stampArgs are stampOwner's arguments for trip id: on PostgreSQL the
// trip's notice names it too.
func stampArgs(s *Store, id string) []any {
	if s.reads.announces {
		return []any{id, id}
	}
	return []any{id}
}

// explain is the plan of query with args, as the engine words it.
func explain(t *testing.T, db *bun.DB, query string, args []any) string {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback() }()
	prefix := "EXPLAIN QUERY PLAN "
	if db.Dialect().Name() == dialect.PG {
		_, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off")
		require.NoError(t, err)
		prefix = "EXPLAIN "
	}
	rows, err := tx.Tx.QueryContext(ctx, prefix+query, args...)
	require.NoError(t, err)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var plan strings.Builder
	for rows.Next() {
		cells := make([]any, len(cols))
		for i := range cells {
			cells[i] = new(any)
		}
		require.NoError(t, rows.Scan(cells...))
		fmt.Fprintln(&plan, *(cells[len(cells)-1].(*any))) // the detail is the last column
	}
	require.NoError(t, rows.Err())
	return plan.String()
}

// TestARememberedDigestIsCheckedInItsTime: a write this store did not make
// (another replica's, a script's) is read once the remembered digest is
// checkEvery old, not before; one it made inside a transaction is read as
// soon as the transaction commits, though a read in the meantime
// remembered the digest before it.
func TestARememberedDigestIsCheckedInItsTime(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		s.SetCheckEvery(250 * time.Millisecond)
		clock := time.Now()
		s.now = func() time.Time { return clock }
		user := readFixture(t, db, "checker@example.com")
		tr := newTrip(user, "00000000-0000-7000-8000-0000000000bb", "Before", time.Now().UTC(), nil, nil)
		require.NoError(t, s.Insert(ctx, tr))
		title := func() string { t.Helper(); return digestTitle(t, s, tr.ID) }
		require.Equal(t, "Before", title())

		writtenElsewhere(t, db, tr.ID, "Elsewhere")
		clock = clock.Add(100 * time.Millisecond)
		require.Equal(t, "Before", title(), "within checkEvery of its check, a digest is given as remembered")
		clock = clock.Add(200 * time.Millisecond)
		require.Equal(t, "Elsewhere", title(), "past it, the revision is read and the write with it")

		err := storage.Tx{DB: db}.InTx(ctx, func(txCtx context.Context) error {
			cur, err := s.Get(txCtx, tr.ID)
			require.NoError(t, err)
			cur.Title = new("Here")
			require.NoError(t, s.Update(txCtx, cur, cur.Version, false))
			require.Equal(t, "Elsewhere", title(), "a read beside the open transaction remembers the digest before it")
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, "Here", title(), "the commit forgot it")
	})
}

// TestARelayedEventForgetsTheDigest: a trip's event reaching this replica's
// stream (published after a write another replica committed) makes the
// next read of the trip read its revision, however recently the remembered
// digest was checked: a client that reads trip_complete and then get_trip
// is not answered from before it.
func TestARelayedEventForgetsTheDigest(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		s.SetCheckEvery(time.Hour)
		hub := progress.NewLocal()
		trips := &Trips{store: s, progress: hub}
		user := readFixture(t, db, "relay@example.com")
		tr := newTrip(user, "00000000-0000-7000-8000-0000000000cc", "Before", time.Now().UTC(), nil, nil)
		tr.ComputationStatus = StatusMap{ComputeStages: StatusRunning}
		require.NoError(t, s.Insert(ctx, tr))
		title := func() string { t.Helper(); return digestTitle(t, s, tr.ID) }
		require.Equal(t, "Before", title())
		// Another replica's write, then its event.
		writtenElsewhere(t, db, tr.ID, "After")
		require.Equal(t, "Before", title(), "remembered, and not checked within the hour")

		streamCtx, stop := context.WithCancel(ctx)
		defer stop()
		relayed := make(chan string, 8)
		done := make(chan error, 1)
		go func() {
			done <- (EventStream{trips: trips, id: tr.ID}).Stream(streamCtx, func(e registry.StreamEvent) error {
				relayed <- e.Event
				return nil
			})
		}()
		require.Equal(t, EventStatus, <-relayed, "the stream opens with the statuses")
		require.NoError(t, hub.Publish(ctx, tr.ID, progress.Event{Type: EventTripComplete, Data: map[string]any{}}))
		require.Equal(t, EventTripComplete, <-relayed)
		require.NoError(t, <-done, "the stream ends at trip_complete")
		require.Equal(t, "After", title(), "the relayed event made the read check the revision")
	})
}

// digestTitle is trip id's title as Digest answers it.
func digestTitle(t *testing.T, s *Store, id string) string {
	t.Helper()
	got, _, _, err := s.Digest(context.Background(), id)
	require.NoError(t, err)
	return *got.Title
}

// writtenElsewhere retitles trip id as another replica would: through the
// database, moving the revision on, unseen by the store under test.
func writtenElsewhere(t *testing.T, db *bun.DB, id, title string) {
	t.Helper()
	_, err := db.NewUpdate().Table("trips").Set("title = ?", title).Set(bumpRevision).Where("id = ?", id).Exec(context.Background())
	require.NoError(t, err)
}

// BenchmarkList is list_trips' read of the first page (20 of a user's 100
// trips, each with its days kept on its row), without a filter and with a
// title filter. cpu-ns/op is the process's CPU per read (on PostgreSQL,
// the server's own backend not included).
func BenchmarkList(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run("engine="+engine, func(b *testing.B) {
			s, _ := benchTrip(b, engine, importedStages(benchTripID, 3, 100, 5))
			ctx := context.Background()
			at := time.Now().UTC()
			for i := range 99 {
				id := fmt.Sprintf("0190a6f0-0000-7000-8000-%012d", 100+i)
				tr := newTrip("user-bench", id, fmt.Sprintf("Bench %d", i), at.Add(time.Duration(i)*time.Second), nil, nil)
				require.NoError(b, s.Insert(ctx, tr))
				require.NoError(b, s.ReplaceStages(ctx, id, importedStages(id, 3+i%10, 100, 5)))
			}
			for _, f := range []struct {
				name   string
				filter Filter
				total  int
			}{{"filter=none", Filter{}, 100}, {"filter=title", Filter{Title: "bench 1"}, 11}} {
				b.Run(f.name, func(b *testing.B) {
					measureCPU(b, func() error {
						page, total, err := s.List(ctx, "user-bench", f.filter, 0, 20)
						if err != nil || total != f.total || len(page) != min(20, f.total) {
							return fmt.Errorf("%d listed of %d: %v", len(page), total, err)
						}
						return nil
					})
				})
			}
		})
	}
}

// aWrite is one kind of write to a trip, named.
type aWrite struct {
	name  string
	write func() error
}

// everyWrite is each kind of write the store makes to trip tr, its days or
// its share, in an order in which each changes what get_trip reads: the
// remembered digests and the kept listings must follow every one.
func everyWrite(t *testing.T, s *Store, trips *Trips, tr *Trip, call *registry.Call) []aWrite {
	ctx := context.Background()
	// update writes the trip's settings as change leaves them.
	update := func(change func(*Trip)) func() error {
		return func() error {
			cur, err := s.Get(ctx, tr.ID)
			require.NoError(t, err)
			next := *cur
			change(&next)
			return s.Update(ctx, &next, cur.Version, false)
		}
	}
	title, date := "Alps, again", "2031-06-01"
	return []aWrite{
		{"settings (Update)", update(func(t *Trip) { t.Title = &title })},
		{"a computation's status (transition)", func() error {
			return s.transition(ctx, tr.ID, tr.Generation, map[string]string{ComputeTerrain: StatusDone})
		}},
		{"the imported route (SaveRoute)", func() error {
			return s.SaveRoute(ctx, &RouteRecord{TripID: tr.ID, SourceType: "strava_route", Raw: Points{{Lat: 45, Lon: 6}}, Decimated: Points{{Lat: 45, Lon: 6}}})
		}},
		{"the days (ReplaceStages)", func() error {
			days := fullStages(tr.ID)
			days[2].Distance = 52.5
			return s.ReplaceStages(ctx, tr.ID, days)
		}},
		{"an enrichment's outcome (saveOutcome)", func() error {
			days, err := s.Stages(ctx, tr.ID)
			require.NoError(t, err)
			return storage.Tx{DB: s.db}.InTx(ctx, func(ctx context.Context) error {
				return s.saveOutcome(ctx, tr.ID, ComputeWater, days, outcome{coverage: CoverageNoDate})
			})
		}},
		{"a start date (Update)", update(func(t *Trip) { t.StartDate = &date })},
		{"an outcome that counts alerts anew (saveOutcome)", func() error {
			return saveAlert(ctx, s, tr.ID, alerts.SeverityWarning, "Steep")
		}},
		{"an outcome that leaves the counts (saveOutcome)", func() error {
			return saveAlert(ctx, s, tr.ID, alerts.SeverityWarning, "Steeper")
		}},
		{"a share (share_trip)", func() error {
			_, err := trips.share(ctx, call, nil)
			return err
		}},
		{"its revocation (unshare_trip)", func() error {
			_, err := trips.unshare(ctx, call, nil)
			return err
		}},
		{"a new plan (regenerate)", func() error {
			locked, err := s.Get(ctx, tr.ID)
			require.NoError(t, err)
			return s.regenerate(ctx, &dispatched{}, locked, []string{ComputeTerrain})
		}},
	}
}

// BenchmarkDetailMiss is get_trip's read of a trip whose digest and answer
// are not held (a trip read for the first time, or again after it left
// memory): the digest read, the answer built, encoded and kept, for 3 and
// 16 days on each engine.
func BenchmarkDetailMiss(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, n := range []int{3, 16} {
			b.Run(fmt.Sprintf("engine=%s/days=%d", engine, n), func(b *testing.B) {
				s, id := benchTrip(b, engine, importedStages(benchTripID, n, 100, 5))
				trips := &Trips{store: s, details: newKeptDetails()}
				now := time.Now()
				measureCPU(b, func() error {
					s.forget(id)
					trips.details.held.Forget(id)
					d, err := trips.Detail(context.Background(), id, now)
					if err == nil && (len(d.Days) != n || d.Abridged()) {
						err = fmt.Errorf("%d days, abridged %v: not read afresh", len(d.Days), d.Abridged())
					}
					return err
				})
			})
		}
	}
}
