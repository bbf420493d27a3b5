package storage_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// note is the table these tests write, created by each test.
type note struct {
	bun.BaseModel `bun:"table:notes"`

	ID   string `bun:"id,pk"`
	Body string `bun:"body,notnull"`
}

func notes(t *testing.T, db *bun.DB) {
	t.Helper()
	_, err := db.NewCreateTable().Model((*note)(nil)).Exec(context.Background())
	require.NoError(t, err)
}

func count(t *testing.T, db *bun.DB) int {
	t.Helper()
	n, err := db.NewSelect().Model((*note)(nil)).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

// write inserts a note through Conn, as a module does.
func write(ctx context.Context, db *bun.DB, id string) error {
	_, err := storage.Conn(ctx, db).NewInsert().Model(&note{ID: id, Body: "body of " + id}).Exec(ctx)
	return err
}

var errFailed = errors.New("the work failed")

func TestConnSharesTheTransaction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fail  bool
		notes int
	}{
		{"commits with it", false, 1},
		{"rolls back with it", true, 0},
	}
	storagetest.Engines(t, func(t *testing.T, db *bun.DB) {
		notes(t, db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ctx := context.Background()
				before := count(t, db)
				err := storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
					if err := write(ctx, db, tt.name); err != nil {
						return err
					}
					n, err := storage.Conn(ctx, db).NewSelect().Model((*note)(nil)).Where("id = ?", tt.name).Count(ctx)
					if err != nil {
						return err
					}
					require.EqualValues(t, 1, n, "the transaction reads its own write")
					if tt.fail {
						return errFailed
					}
					return nil
				})
				if tt.fail {
					require.ErrorIs(t, err, errFailed)
				} else {
					require.NoError(t, err)
				}
				require.Equal(t, before+tt.notes, count(t, db))
			})
		}
	})
}

func TestNestedInTxJoins(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		innerFails, outFails bool
		notes                int
	}{
		{"both succeed", false, false, 2},
		{"the inner one fails", true, false, 0},
		{"the outer one fails after the inner one", false, true, 0},
	}
	storagetest.Engines(t, func(t *testing.T, db *bun.DB) {
		notes(t, db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ctx := context.Background()
				before := count(t, db)
				tx := storage.Tx{DB: db}
				err := tx.InTx(ctx, func(ctx context.Context) error {
					outer, _ := storage.SQLTx(ctx)
					if err := write(ctx, db, tt.name+" outer"); err != nil {
						return err
					}
					if err := tx.InTx(ctx, func(ctx context.Context) error {
						inner, _ := storage.SQLTx(ctx)
						require.Same(t, outer, inner, "the inner call runs in the outer transaction")
						if err := write(ctx, db, tt.name+" inner"); err != nil {
							return err
						}
						if tt.innerFails {
							return errFailed
						}
						return nil
					}); err != nil {
						return err
					}
					if tt.outFails {
						return errFailed
					}
					return nil
				})
				if tt.innerFails || tt.outFails {
					require.ErrorIs(t, err, errFailed)
				} else {
					require.NoError(t, err)
				}
				require.Equal(t, before+tt.notes, count(t, db), "the inner write commits and rolls back with the outer")
			})
		}
	})
}

// TestQueryBesideTheTransaction: on SQLite, a query made with the
// transaction's context on another connection is refused at once, naming
// the fix, instead of waiting for the lock the transaction holds.
func TestQueryBesideTheTransaction(t *testing.T) {
	t.Parallel()
	db, path := storagetest.SQLiteFile(t)
	notes(t, db)
	other, err := storage.OpenSQLitePool(path) // a second pool on the file, as the job queue opens
	require.NoError(t, err)
	t.Cleanup(func() { other.Close() })

	tests := []struct {
		name  string
		query func(ctx context.Context) error
	}{
		{"an insert through the *bun.DB", func(ctx context.Context) error {
			_, err := db.NewInsert().Model(&note{ID: "beside", Body: "b"}).Exec(ctx)
			return err
		}},
		{"an update through the *bun.DB", func(ctx context.Context) error {
			_, err := db.NewUpdate().Model((*note)(nil)).Set("body = ?", "b").Where("id = ?", "kept").Exec(ctx)
			return err
		}},
		{"a read through the *bun.DB", func(ctx context.Context) error {
			_, err := db.NewSelect().Model((*note)(nil)).Count(ctx)
			return err
		}},
		{"a transaction of its own", func(ctx context.Context) error {
			return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return nil })
		}},
		{"a statement prepared on the pool", func(ctx context.Context) error {
			stmt, err := db.PrepareContext(ctx, "SELECT count(*) FROM notes")
			if err != nil {
				return err
			}
			defer stmt.Close()
			var n int
			return stmt.QueryRowContext(ctx).Scan(&n)
		}},
		{"a write on another pool of the file", func(ctx context.Context) error {
			_, err := other.ExecContext(ctx, "INSERT INTO notes (id, body) VALUES ('other', 'b')")
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			before := count(t, db)
			err := storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
				err := tt.query(ctx)
				require.ErrorIs(t, err, storage.ErrBesideTx)
				require.ErrorContains(t, err, "run it through storage.Conn(ctx, db)")
				// The refusal leaves the transaction whole: it still writes and commits.
				return write(ctx, db, tt.name)
			})
			require.NoError(t, err)
			require.Equal(t, before+1, count(t, db))
		})
	}
}

// TestOnlyTheTransactionIsGuarded: the same queries run where no
// transaction is open, and through the transaction itself.
func TestOnlyTheTransactionIsGuarded(t *testing.T) {
	t.Parallel()
	db, path := storagetest.SQLiteFile(t)
	notes(t, db)
	other, err := storage.OpenSQLitePool(path)
	require.NoError(t, err)
	t.Cleanup(func() { other.Close() })
	ctx := context.Background()

	var kept context.Context
	require.NoError(t, storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
		kept = ctx
		tx, ok := storage.SQLTx(ctx)
		require.True(t, ok)
		// The job queue inserts through the *sql.Tx itself.
		if _, err := tx.ExecContext(ctx, "INSERT INTO notes (id, body) VALUES ('through the sql.Tx', 'b')"); err != nil {
			return err
		}
		return write(ctx, db, "through Conn")
	}))
	require.Equal(t, 2, count(t, db))

	tests := []struct {
		name string
		ctx  context.Context
	}{
		{"no transaction in the context", ctx},
		{"a context kept after its transaction ended", kept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.NewInsert().Model(&note{ID: tt.name, Body: "b"}).Exec(tt.ctx)
			require.NoError(t, err)
			_, err = other.ExecContext(tt.ctx, "UPDATE notes SET body = 'c' WHERE id = ?", tt.name)
			require.NoError(t, err)
		})
	}
}

func TestStmtInsideAndOutsideATransaction(t *testing.T) {
	t.Parallel()
	storagetest.Engines(t, func(t *testing.T, db *bun.DB) {
		notes(t, db)
		ctx := context.Background()
		body := storage.Prepare(db, "SELECT body FROM notes WHERE id = ?")
		read := func(ctx context.Context, id string) (string, error) {
			row, err := body.QueryRow(ctx, id)
			if err != nil {
				return "", err
			}
			var s string
			return s, row.Scan(&s)
		}

		require.NoError(t, write(ctx, db, "committed"))
		got, err := read(ctx, "committed")
		require.NoError(t, err, "outside a transaction")
		require.Equal(t, "body of committed", got)

		err = storage.Tx{DB: db}.InTx(ctx, func(txCtx context.Context) error {
			require.NoError(t, write(txCtx, db, "pending"))
			got, err := read(txCtx, "pending")
			require.NoError(t, err, "inside, the statement sees the transaction's write")
			require.Equal(t, "body of pending", got)
			_, err = read(ctx, "pending")
			require.True(t, storage.NoRows(err), "outside, nothing is committed yet: %v", err)
			got, err = read(txCtx, "committed")
			require.NoError(t, err)
			require.Equal(t, "body of committed", got)
			return errFailed
		})
		require.ErrorIs(t, err, errFailed)
		_, err = read(ctx, "pending")
		require.True(t, storage.NoRows(err), "rolled back: %v", err)
		got, err = read(ctx, "committed")
		require.NoError(t, err, "the statement still works after the transaction")
		require.Equal(t, "body of committed", got)
	})
}

// TestSQLiteSettings: every connection of a pool carries the settings the
// file needs, through the guarded driver.
func TestSQLiteSettings(t *testing.T) {
	t.Parallel()
	db, path := storagetest.SQLiteFile(t)
	ctx := context.Background()
	tests := []struct {
		pragma, want string
	}{
		{"journal_mode", "wal"},
		{"busy_timeout", "10000"},
		{"foreign_keys", "1"},
		{"synchronous", "1"}, // NORMAL
	}
	for _, tt := range tests {
		t.Run(tt.pragma, func(t *testing.T) {
			var got string
			require.NoError(t, db.QueryRowContext(ctx, "PRAGMA "+tt.pragma).Scan(&got))
			require.Equal(t, tt.want, got)
		})
	}

	t.Run("a transaction takes the write lock when it begins", func(t *testing.T) {
		other, err := storage.OpenSQLitePool(path)
		require.NoError(t, err)
		defer other.Close()
		conn, err := other.Conn(ctx)
		require.NoError(t, err)
		defer conn.Close()
		_, err = conn.ExecContext(ctx, "PRAGMA busy_timeout = 0") // fail at once instead of queueing
		require.NoError(t, err)
		_, err = conn.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS locks (id INTEGER PRIMARY KEY)")
		require.NoError(t, err)
		require.NoError(t, storage.Tx{DB: db}.InTx(ctx, func(context.Context) error {
			// The transaction has written nothing yet; with a deferred
			// BEGIN this write would go through.
			_, err := conn.ExecContext(context.Background(), "INSERT INTO locks DEFAULT VALUES")
			require.Error(t, err)
			require.Contains(t, err.Error(), "SQLITE_BUSY")
			return nil
		}))
		_, err = conn.ExecContext(ctx, "INSERT INTO locks DEFAULT VALUES")
		require.NoError(t, err, "the lock ends with the transaction")
	})
}

// TestUniqueViolationThroughTheDriver: the engine's errors come through the
// guarded driver as they are.
func TestUniqueViolationThroughTheDriver(t *testing.T) {
	t.Parallel()
	storagetest.Engines(t, func(t *testing.T, db *bun.DB) {
		notes(t, db)
		ctx := context.Background()
		require.NoError(t, write(ctx, db, "twice"))
		err := write(ctx, db, "twice")
		require.True(t, storage.IsUniqueViolation(err), "%v", err)
	})
}

// TestAfterCommit: what a transaction's code hands AfterCommit runs once
// the transaction has committed (and what it wrote is then visible), never
// when it rolls back, and at once outside a transaction.
func TestAfterCommit(t *testing.T) {
	t.Parallel()
	storagetest.Engines(t, func(t *testing.T, db *bun.DB) {
		notes(t, db)
		ctx := context.Background()
		tests := []struct {
			name     string
			fail     error
			wantRuns int
		}{
			{"committed", nil, 1},
			{"rolled back", errors.New("refused"), 0},
		}
		for i, tt := range tests {
			runs, seen := 0, -1
			err := storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
				_, err := storage.Conn(ctx, db).NewInsert().Model(&note{ID: tt.name, Body: "x"}).Exec(ctx)
				require.NoError(t, err)
				storage.AfterCommit(ctx, func() { runs++; seen = count(t, db) })
				require.Zero(t, runs, "%s: nothing runs before the commit", tt.name)
				return tt.fail
			})
			require.ErrorIs(t, err, tt.fail)
			require.Equal(t, tt.wantRuns, runs, tt.name)
			if tt.wantRuns > 0 {
				require.Equal(t, i+1, seen, "%s: the commit is visible when it runs", tt.name)
			}
		}
		ran := false
		storage.AfterCommit(ctx, func() { ran = true })
		require.True(t, ran, "outside a transaction it runs at once")
	})
}

// TestReadOnlyRefusesWrites: inside Tx.ReadOnly a read goes through and a
// write fails on both engines, naming what wrote; the refused write leaves
// nothing, and the connection writes again once the transaction ended.
func TestReadOnlyRefusesWrites(t *testing.T) {
	t.Parallel()
	storagetest.Engines(t, func(t *testing.T, db *bun.DB) {
		notes(t, db)
		ctx := context.Background()
		tx := storage.Tx{DB: db}
		require.NoError(t, write(ctx, db, "before"))
		before := count(t, db)

		err := tx.ReadOnly(ctx, "notes.update: Merge", func(ctx context.Context) error {
			n, err := storage.Conn(ctx, db).NewSelect().Model((*note)(nil)).Count(ctx)
			require.NoError(t, err, "a read goes through")
			require.EqualValues(t, before, n)
			return nil
		})
		require.NoError(t, err)

		err = tx.ReadOnly(ctx, "notes.update: Merge", func(ctx context.Context) error {
			return write(ctx, db, "in-a-read")
		})
		require.ErrorIs(t, err, registry.ErrWroteWhileReading)
		require.ErrorContains(t, err, "notes.update: Merge wrote to the database")
		require.Equal(t, before, count(t, db), "the refused write left nothing")

		err = tx.ReadOnly(ctx, "a failing read", func(context.Context) error { return errFailed })
		require.ErrorIs(t, err, errFailed, "another error is given as it is")
		require.NotErrorIs(t, err, registry.ErrWroteWhileReading)

		// Every pooled connection writes again after a read-only transaction.
		for i := range 10 {
			require.NoError(t, write(ctx, db, fmt.Sprintf("after-%d", i)))
		}
		require.Equal(t, before+10, count(t, db))
	})
}

// BeforeCommit runs each key's function once, the last given, inside the
// transaction: what it writes commits with the transaction's work, and its
// error rolls both back. Outside a transaction it runs at once.
func TestBeforeCommitRunsOncePerKeyInsideTheTransaction(t *testing.T) {
	t.Parallel()
	storagetest.Engines(t, func(t *testing.T, db *bun.DB) {
		notes(t, db)
		ctx := context.Background()
		var ran []string
		err := storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
			for i := range 3 {
				require.NoError(t, write(ctx, db, fmt.Sprint("work-", i)))
				require.NoError(t, storage.BeforeCommit(ctx, "derived", func(ctx context.Context) error {
					ran = append(ran, fmt.Sprint("derived after ", i))
					return write(ctx, db, "derived")
				}))
			}
			require.Empty(t, ran, "nothing runs before the work is done")
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, []string{"derived after 2"}, ran)
		require.Equal(t, 4, count(t, db))

		err = storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
			require.NoError(t, write(ctx, db, "rolled-back"))
			return storage.BeforeCommit(ctx, "derived", func(context.Context) error { return errFailed })
		})
		require.ErrorIs(t, err, errFailed)
		require.Equal(t, 4, count(t, db), "the hook's error rolls the work back")

		ranNow := false
		require.NoError(t, storage.BeforeCommit(ctx, "k", func(context.Context) error { ranNow = true; return nil }))
		require.True(t, ranNow, "outside a transaction it runs at once")
	})
}
