package planner

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/app/jobs"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/routefixture"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// stallingSource hangs on its first fetch until the worker is killed, then
// serves a 200 km route.
type stallingSource struct {
	calls atomic.Int32
}

func (s *stallingSource) Fetch(ctx context.Context, _ string) (trips.Imported, error) {
	if s.calls.Add(1) == 1 {
		<-ctx.Done()
		return trips.Imported{}, ctx.Err()
	}
	return trips.Imported{Title: "Durable", SourceType: "strava_route", Tracks: [][]geo.Point{routefixture.Zigzag(200_000)}}, nil
}

type engine struct {
	name string
	open func(t *testing.T) (*bun.DB, storage.Engine, string)
}

var engines = []engine{
	{"sqlite", func(t *testing.T) (*bun.DB, storage.Engine, string) {
		db, path := storagetest.SQLiteFile(t, migrationsOf(t)...)
		return db, storage.SQLite, path
	}},
	{"postgres", func(t *testing.T) (*bun.DB, storage.Engine, string) {
		return storagetest.Postgres(t, migrationsOf(t)...), storage.Postgres, ""
	}},
}

func migrationsOf(t *testing.T) []migrations.Source {
	var out []migrations.Source
	for _, m := range Product().Modules {
		out = append(out, m.Migrations...)
	}
	return out
}

// process is one server process: its queue and its pipeline.
func process(t *testing.T, db *bun.DB, eng storage.Engine, path string, src trips.Source) *jobs.Queue {
	q, err := jobs.Open(db, eng, path)
	require.NoError(t, err)
	require.NoError(t, q.Migrate(context.Background()))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	mod := trips.New(trips.Params{Store: trips.NewStore(db), Jobs: dispatcher{q: q}, Progress: progress.NewLocal(), Source: src, Log: log})
	require.NoError(t, q.Start(context.Background(), jobs.Config{Workers: 2, PollInterval: 50 * time.Millisecond},
		[]jobs.Work{computeWork(mod.Pipeline)}, log))
	return q
}

// TestAKilledWorkerLosesNothing: the worker is killed in the middle of the
// import; another process picks the job up and the computation completes,
// once.
func TestAKilledWorkerLosesNothing(t *testing.T) {
	t.Parallel()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db, eng, path := e.open(t)
			src := &stallingSource{}
			first := process(t, db, eng, path, src)

			u, _, err := accounts.NewStore(db, registry.New()).EnsureUser(ctx, "durable@example.com")
			require.NoError(t, err)
			store := trips.NewStore(db)
			id := insertTrip(t, store, u.ID)
			require.NoError(t, dispatcher{q: first}.Dispatch(ctx, id, 1, trips.ComputeRoute))

			require.Eventually(t, func() bool { return src.calls.Load() == 1 }, 20*time.Second, 20*time.Millisecond, "the first worker starts the import")
			stop, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			_ = first.Stop(stop) // the grace runs out: the running job is cancelled

			second := process(t, db, eng, path, src)
			defer second.Stop(ctx)
			require.Eventually(t, func() bool {
				tr, err := store.Get(ctx, id)
				require.NoError(t, err)
				for _, s := range tr.ComputationStatus {
					if !trips.Settled(s) {
						return false
					}
				}
				return true
			}, 30*time.Second, 50*time.Millisecond, "another process completes the work")

			tr, err := store.Get(ctx, id)
			require.NoError(t, err)
			require.Equal(t, everything(trips.StatusDone), tr.ComputationStatus)
			require.EqualValues(t, 2, src.calls.Load(), "fetched once more after the kill, no more")
			stages, err := store.Stages(ctx, id)
			require.NoError(t, err)
			require.Len(t, stages, 3, "one set of days: 200 km at 80 km a day")
		})
	}
}

func insertTrip(t *testing.T, store *trips.Store, userID string) string {
	now := time.Now().UTC()
	tr := &trips.Trip{
		ID: uuid.Must(uuid.NewV7()).String(), UserID: userID, SourceURL: "https://www.strava.com/routes/1",
		FatigueFactor: 0.9, ElevationPenalty: 50, MaxDistancePerDay: 80, AverageSpeed: 15, DepartureHour: 8,
		EnabledAccommodationTypes: trips.TypeList{"hotel"}, Locale: "en", Status: trips.StatusDraft,
		ComputationStatus: everything(trips.StatusPending),
		Version:           1, Generation: 1, CreatedAt: now, UpdatedAt: now,
	}
	require.NoError(t, store.Insert(context.Background(), tr))
	return tr.ID
}

// everything is every computation at status st.
func everything(st string) trips.StatusMap {
	out := trips.StatusMap{}
	for _, n := range trips.Computations {
		out[n] = st
	}
	return out
}
