package storage_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// hearing starts notices on db, hearing channel "t" into the channel
// answered, and waits until they listen.
func hearing(t *testing.T, db *bun.DB) (*storage.Notices, <-chan string) {
	t.Helper()
	n := storage.NewNotices(db, slog.New(slog.DiscardHandler))
	require.NotNil(t, n, "PostgreSQL has notices")
	heard := make(chan string, 16)
	n.Hear("t", func(p string) { heard <- p })
	n.Start()
	t.Cleanup(n.Close)
	waitLive(t, n)
	return n, heard
}

func waitLive(t *testing.T, n *storage.Notices) uint64 {
	t.Helper()
	require.Eventually(t, func() bool { return n.Heard() != 0 }, 20*time.Second, 10*time.Millisecond, "listening never started")
	return n.Heard()
}

func next(t *testing.T, heard <-chan string) string {
	t.Helper()
	select {
	case p := <-heard:
		return p
	case <-time.After(20 * time.Second):
		t.Fatal("no notice heard")
		return ""
	}
}

// A notice sent in a transaction is heard once it commits, never when it
// rolls back; one sent outside a transaction is heard at once.
func TestNoticesAreHeardOnceCommitted(t *testing.T) {
	t.Parallel()
	db := storagetest.Postgres(t)
	_, heard := hearing(t, db)
	ctx := context.Background()

	err := storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
		require.NoError(t, storage.Notify(ctx, db, "t", "committed"))
		// Not before the commit: nothing else sends on "t".
		require.NoError(t, storage.Notify(context.Background(), db, "t", "beside"))
		require.Equal(t, "beside", next(t, heard))
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, "committed", next(t, heard))

	err = storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
		require.NoError(t, storage.Notify(ctx, db, "t", "rolled back"))
		return errFailed
	})
	require.ErrorIs(t, err, errFailed)
	require.NoError(t, storage.Notify(ctx, db, "t", "after"))
	require.Equal(t, "after", next(t, heard), "a rolled back notice is never heard")
}

// Listening lost is said (not live), and starts again under a new
// generation once the database is back, hearing what is sent then.
func TestNoticesListenAgainAfterALostConnection(t *testing.T) {
	t.Parallel()
	outage := storagetest.NewPostgresOutage(t)
	db, _, err := storage.Open(outage.URL, "")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	n, heard := hearing(t, db)
	before := n.Heard()

	outage.Cut()
	require.Eventually(t, func() bool { return n.Heard() == 0 }, 20*time.Second, 10*time.Millisecond,
		"listening lost is not said")
	outage.Restore(t)
	after := waitLive(t, n)
	require.Greater(t, after, before, "listening again is a new generation")

	require.NoError(t, storage.Notify(context.Background(), db, "t", "back"))
	require.Equal(t, "back", next(t, heard))
}

// On SQLite one process holds the file: there are no notices, and sending
// one does nothing.
func TestNoNoticesOnSQLite(t *testing.T) {
	t.Parallel()
	db := storagetest.SQLite(t)
	n := storage.NewNotices(db, slog.New(slog.DiscardHandler))
	require.Nil(t, n)
	n.Hear("t", func(string) { t.Error("heard on SQLite") })
	n.Start()
	defer n.Close()
	require.Zero(t, n.Heard())
	require.NoError(t, storage.Notify(context.Background(), db, "t", "nobody"))
}
