package trips

import (
	"context"

	"cairn.dev/cairn/storage"
)

// seedBatch is how many rows one seeding statement writes: a few hundred
// kilobytes of SQL, well under either engine's statement limits.
const seedBatch = 500

// Seed stores trips and their days as they are, in multi-row statements,
// within the transaction ctx carries (or each statement its own). It is
// for loading a data set (a benchmark's, a migration's): no revision is
// moved, no digest forgotten, no listing stamp moved and no computation
// dispatched, so the trips must be complete, statuses included, and new to
// every reader: loaded before any server reads their users' listings. Each
// trip's days are kept on its row, as every write keeps them.
func (s *Store) Seed(ctx context.Context, trips []*Trip, stages []Stage) error {
	db := storage.Conn(ctx, s.db)
	for from := 0; from < len(trips); from += seedBatch {
		batch := trips[from:min(from+seedBatch, len(trips))]
		if _, err := db.NewInsert().Model(&batch).Exec(ctx); err != nil {
			return err
		}
	}
	for from := 0; from < len(stages); from += seedBatch {
		batch := stages[from:min(from+seedBatch, len(stages))]
		if _, err := db.NewInsert().Model(&batch).Exec(ctx); err != nil {
			return err
		}
	}
	for _, t := range trips {
		if err := s.keepDigest(ctx, t.ID); err != nil {
			return err
		}
	}
	return nil
}
