package notes

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// Store keeps notes. Every query goes through storage.Conn, so it joins
// the transaction a guard carries in ctx: a creation's insert commits with
// its idempotency key, and never waits on that transaction's lock.
type Store struct{ db *bun.DB }

// NewStore returns a store over the application's database.
func NewStore(db *bun.DB) *Store { return &Store{db: db} }

// Owns reports whether the user owns note id. An unknown id, someone else's
// and one that is not even a UUID get the same false.
func (s *Store) Owns(ctx context.Context, userID, id string) (bool, error) {
	if _, err := uuid.Parse(id); err != nil {
		return false, nil
	}
	n, err := storage.Conn(ctx, s.db).NewSelect().Model((*Note)(nil)).
		Where("id = ? AND user_id = ?", id, userID).Count(ctx)
	return n > 0, err
}

// Get loads note id.
func (s *Store) Get(ctx context.Context, id string) (*Note, error) {
	n := new(Note)
	err := storage.Conn(ctx, s.db).NewSelect().Model(n).Where("id = ?", id).Scan(ctx)
	if storage.NoRows(err) {
		// Deleted between the owner guard and here: the same answer as unknown.
		return nil, registry.Fail(registry.KindNotFound, registry.NotFoundDetail)
	}
	return n, err
}

// Insert stores a new note.
func (s *Store) Insert(ctx context.Context, n *Note) error {
	_, err := storage.Conn(ctx, s.db).NewInsert().Model(n).Exec(ctx)
	return err
}

// ErrStale is returned when a conditional write finds another version.
var ErrStale = registry.Fail(registry.KindPreconditionFailed,
	"the note changed meanwhile; read it again and retry with its current version")

// Update writes n when the stored version is still expected, and bumps the
// version and the time of change. The WHERE clause repeats the precondition guard's comparison,
// so two writers holding one version get one success and one refusal.
func (s *Store) Update(ctx context.Context, n *Note, expected int64, now time.Time) error {
	n.Version = expected + 1
	n.UpdatedAt = stamp(now)
	res, err := storage.Conn(ctx, s.db).NewUpdate().Model(n).
		Column("title", "body", "archived", "version", "updated_at").
		WherePK().Where("version = ?", expected).Exec(ctx)
	if err != nil {
		return err
	}
	if rows, err := res.RowsAffected(); err != nil || rows != 1 {
		return ErrStale
	}
	return nil
}

// Delete removes note id.
func (s *Store) Delete(ctx context.Context, id string) error {
	_, err := storage.Conn(ctx, s.db).NewDelete().Model((*Note)(nil)).Where("id = ?", id).Exec(ctx)
	return err
}

// stamp is a time as both engines store it (UTC, microseconds), so an
// answer made before the write reads the same as one read back after it
// (a replayed creation).
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
