package storage

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// gatedPools are two pools on one file, as the application's and the job
// queue's are, whose connections give up at once when SQLite finds the
// write lock held (busy_timeout 0): a write that gets through while another
// holds the lock waited at the gate, not in SQLite's busy handler.
func gatedPools(t *testing.T) (a, b *sql.DB, gate *writeGate) {
	t.Helper()
	a, b, path := gatedFile(t)
	return a, b, gateFor(path)
}

// gatedFile is gatedPools and the file's path.
func gatedFile(t *testing.T) (a, b *sql.DB, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "gate.db")
	a, err := openSQLitePool(path, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	b, err = openSQLitePool(path, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	_, err = a.Exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
	require.NoError(t, err)
	return a, b, path
}

// TestWritersOfTheProcessQueueAtTheGate: a write transaction begun while
// another of the process holds the lock waits for it to end and then goes
// through, on any pool of the file; SQLite's busy handler, which sleeps
// up to 100 ms between tries and is not woken when the lock frees, is not
// where it waits.
func TestWritersOfTheProcessQueueAtTheGate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("a second writer waits for the first, then writes", func(t *testing.T) {
		a, b, gate := gatedPools(t)
		first, err := a.BeginTx(ctx, nil)
		require.NoError(t, err)
		_, err = first.Exec("INSERT INTO notes (body) VALUES ('first')")
		require.NoError(t, err)

		done := make(chan error, 1)
		go func() {
			second, err := b.BeginTx(ctx, nil)
			if err == nil {
				_, err = second.Exec("INSERT INTO notes (body) VALUES ('second')")
			}
			if err == nil {
				err = second.Commit()
			}
			done <- err
		}()
		require.Eventually(t, func() bool { return gate.waiting.Load() == 1 }, 10*time.Second, time.Millisecond,
			"the second writer should wait at the gate")
		require.NoError(t, first.Commit())
		require.NoError(t, <-done)
		var n int
		require.NoError(t, a.QueryRow("SELECT count(*) FROM notes").Scan(&n))
		require.Equal(t, 2, n)
	})

	t.Run("a rolled-back writer lets the next through", func(t *testing.T) {
		a, b, _ := gatedPools(t)
		first, err := a.BeginTx(ctx, nil)
		require.NoError(t, err)
		require.NoError(t, first.Rollback())
		second, err := b.BeginTx(ctx, nil)
		require.NoError(t, err)
		require.NoError(t, second.Rollback())
	})

	t.Run("a wait ends with its context, and the gate stays whole", func(t *testing.T) {
		a, b, gate := gatedPools(t)
		first, err := a.BeginTx(ctx, nil)
		require.NoError(t, err)
		waitCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			tx, err := b.BeginTx(waitCtx, nil)
			if err == nil {
				_ = tx.Rollback()
			}
			done <- err
		}()
		require.Eventually(t, func() bool { return gate.waiting.Load() == 1 }, 10*time.Second, time.Millisecond)
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		require.NoError(t, first.Commit())
		tx, err := b.BeginTx(ctx, nil)
		require.NoError(t, err, "the cancelled wait took nothing")
		require.NoError(t, tx.Commit())
	})

	t.Run("readers pass the gate", func(t *testing.T) {
		a, b, _ := gatedPools(t)
		first, err := a.BeginTx(ctx, nil)
		require.NoError(t, err)
		defer func() { require.NoError(t, first.Rollback()) }()
		readCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		tx, err := b.BeginTx(readCtx, &sql.TxOptions{ReadOnly: true})
		require.NoError(t, err, "a read-only transaction does not wait for the writer")
		var n int
		require.NoError(t, tx.QueryRowContext(readCtx, "SELECT count(*) FROM notes").Scan(&n))
		require.NoError(t, tx.Commit())
		require.NoError(t, b.QueryRowContext(readCtx, "SELECT count(*) FROM notes").Scan(&n))
	})
	t.Run("a connection the driver opens by name waits at its own file's gate", func(t *testing.T) {
		a, _, path := gatedFile(t)
		other := filepath.Join(t.TempDir(), "other.db")
		dc, err := a.Driver().Open("file:" + other + "?_txlock=immediate&_pragma=busy_timeout(0)")
		require.NoError(t, err)
		defer dc.Close()
		require.Same(t, gateFor(other), dc.(*sqliteConn).gate)
		require.NotSame(t, gateFor(path), dc.(*sqliteConn).gate)
	})
}
