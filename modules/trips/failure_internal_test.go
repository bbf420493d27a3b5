package trips

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"cairn.dev/cairn/storage/storagetest"
)

// TestAFailureIsRecordedWithItsStatuses: a failed computation's statuses and
// the words that name its failure commit together. Here the database
// refuses the words: the statuses stay as they were, rather than saying
// failed with no reason for a read to give.
func TestAFailureIsRecordedWithItsStatuses(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		p := &Pipeline{store: s, log: slog.New(slog.DiscardHandler)}
		user := readFixture(t, db, "failing@example.com")
		tr := newTrip(user, "00000000-0000-7000-8000-0000000000dd", "Failing", time.Now().UTC(), nil, nil)
		tr.ComputationStatus = StatusMap{ComputeRoute: StatusRunning, ComputeStages: StatusPending,
			ComputeTerrain: StatusPending, ComputeAccommodations: StatusPending}
		require.NoError(t, s.Insert(ctx, tr))
		refuse := []string{`CREATE TRIGGER refuse_error BEFORE UPDATE OF error ON computations
			BEGIN SELECT RAISE(ABORT, 'refused'); END`}
		if db.Dialect().Name() == dialect.PG {
			refuse = []string{`CREATE FUNCTION refuse_error() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql`,
				`CREATE TRIGGER refuse_error BEFORE UPDATE OF error ON computations FOR EACH ROW EXECUTE FUNCTION refuse_error()`}
		}
		for _, q := range refuse {
			_, err := db.ExecContext(ctx, q)
			require.NoError(t, err)
		}
		err := p.fail(ctx, Job{TripID: tr.ID, Name: ComputeRoute, Generation: tr.Generation}, FailureNotFound)
		require.ErrorContains(t, err, "refused")
		got, err := s.Get(ctx, tr.ID)
		require.NoError(t, err)
		require.Equal(t, StatusRunning, got.ComputationStatus[ComputeRoute], "nothing of the failure was kept")
	})
}
