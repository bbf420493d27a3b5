package storage_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

func words(t *testing.T, rows *sql.Rows) []string {
	t.Helper()
	var out []string
	for rows.Next() {
		var w string
		require.NoError(t, rows.Scan(&w))
		out = append(out, w)
	}
	require.NoError(t, rows.Err())
	require.NoError(t, rows.Close())
	return out
}

// TestHeldStatementsAnswerAsRunApart: a query with arguments, kept
// prepared by its connection, answers each call's own arguments; the same
// text run while its rows are still open answers apart; more texts than
// a connection keeps are all answered; and a failing text reports its
// error every time.
func TestHeldStatementsAnswerAsRunApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storage.NumbersPool(t, 100)
	const above = "SELECT word FROM numbers WHERE n > ? ORDER BY n LIMIT ?"

	t.Run("each call its own arguments", func(t *testing.T) {
		for _, tt := range []struct {
			from, limit int
			want        []string
		}{
			{0, 2, []string{"w1", "w2"}},
			{98, 5, []string{"w99", "w100"}},
			{100, 3, nil},
			{10, 1, []string{"w11"}},
		} {
			rows, err := pool.QueryContext(ctx, above, tt.from, tt.limit)
			require.NoError(t, err)
			require.Equal(t, tt.want, words(t, rows))
		}
	})

	t.Run("the same text while its rows are open", func(t *testing.T) {
		tx, err := pool.BeginTx(ctx, nil) // one connection for both
		require.NoError(t, err)
		defer func() { _ = tx.Rollback() }()
		outer, err := tx.QueryContext(ctx, above, 0, 3)
		require.NoError(t, err)
		var got []string
		for outer.Next() {
			var w string
			require.NoError(t, outer.Scan(&w))
			inner, err := tx.QueryContext(ctx, above, 50, 1)
			require.NoError(t, err)
			require.Equal(t, []string{"w51"}, words(t, inner))
			got = append(got, w)
		}
		require.NoError(t, outer.Err())
		require.NoError(t, outer.Close())
		require.Equal(t, []string{"w1", "w2", "w3"}, got)
	})

	t.Run("more texts than are kept", func(t *testing.T) {
		for round := range 2 {
			for i := range 150 {
				var w string
				q := fmt.Sprintf("SELECT word FROM numbers WHERE n = ? + %d", i%90)
				require.NoError(t, pool.QueryRowContext(ctx, q, round+1).Scan(&w))
				require.Equal(t, fmt.Sprint("w", round+1+i%90), w)
			}
		}
	})

	t.Run("writes with arguments", func(t *testing.T) {
		for i := range 3 {
			res, err := pool.ExecContext(ctx, "UPDATE numbers SET word = ? WHERE n <= ?", fmt.Sprint("x", i), i+1)
			require.NoError(t, err)
			n, err := res.RowsAffected()
			require.NoError(t, err)
			require.EqualValues(t, i+1, n)
		}
		var w string
		require.NoError(t, pool.QueryRowContext(ctx, "SELECT word FROM numbers WHERE n = ?", 3).Scan(&w))
		require.Equal(t, "x2", w)
	})

	t.Run("an error each time", func(t *testing.T) {
		for range 2 {
			_, err := pool.ExecContext(ctx, "INSERT INTO numbers (n, word) VALUES (?, ?)", 1, "again")
			require.ErrorContains(t, err, "UNIQUE")
		}
	})

	t.Run("a text that does not prepare", func(t *testing.T) {
		for range 2 {
			_, err := pool.QueryContext(ctx, "SELECT word FROM nowhere WHERE n = ?", 1)
			require.ErrorContains(t, err, "no such table")
		}
	})
}

// TestHeldStatementsSeeOtherConnectionsWrites: a held statement left
// after one row of several (QueryRow) keeps no read open, so the next call
// on its connection reads what another connection committed, and a
// checkpoint of the log is not held back.
func TestHeldStatementsSeeOtherConnectionsWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, path := storagetest.SQLiteFile(t)
	reader, err := storage.OpenSQLitePool(path)
	require.NoError(t, err)
	defer reader.Close()
	reader.SetMaxOpenConns(1)
	writer, err := storage.OpenSQLitePool(path)
	require.NoError(t, err)
	defer writer.Close()
	_, err = reader.ExecContext(ctx, "CREATE TABLE n (k INTEGER PRIMARY KEY, v TEXT)")
	require.NoError(t, err)
	_, err = reader.ExecContext(ctx, "INSERT INTO n VALUES (1, 'one'), (2, 'two')")
	require.NoError(t, err)
	want := "one"
	for _, next := range []string{"x1", "x2", "x3"} {
		var v string
		require.NoError(t, reader.QueryRowContext(ctx, "SELECT v FROM n WHERE k >= ? ORDER BY k", 1).Scan(&v))
		require.Equal(t, want, v)
		_, err := writer.ExecContext(ctx, "UPDATE n SET v = ? WHERE k = 1", next)
		require.NoError(t, err)
		var busy, frames, done int
		require.NoError(t, writer.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &done))
		require.Zero(t, busy, "a held statement keeps a read open")
		want = next
	}
}

// BenchmarkHeldStatement is one read of a row by a query with an argument,
// the way the job queue reads: parsed once per connection.
func BenchmarkHeldStatement(b *testing.B) {
	pool := storage.NumbersPool(b, 1)
	ctx := context.Background()
	const q = `SELECT word FROM numbers WHERE n = ? AND word IS NOT NULL AND n BETWEEN 0 AND 1000000
		AND word <> 'none' AND length(word) > 0 ORDER BY n LIMIT 1`
	for b.Loop() {
		var w string
		if err := pool.QueryRowContext(ctx, q, 1).Scan(&w); err != nil {
			b.Fatal(err)
		}
	}
}
