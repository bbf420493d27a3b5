package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// A statement first run inside a transaction, every connection of the
// pool held by transactions, runs on the transaction's own connection:
// prepared on the pool, it would wait for a connection none of them gives
// back until it commits. The pool prepares it in the background, so the
// transactions after it run the statement the pool keeps.
func TestAStatementFirstRunInATransactionNeedsNoOtherConnection(t *testing.T) {
	t.Parallel()
	storagetest.Engines(t, func(t *testing.T, db *bun.DB) {
		db.SetMaxOpenConns(1)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		stmt := storage.Prepare(db, "SELECT ? + 1")
		err := storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
			for range 2 { // prepared on the transaction's connection, then again
				row, err := stmt.QueryRow(ctx, 41)
				if err != nil {
					return err
				}
				var n int
				if err := row.Scan(&n); err != nil {
					return err
				}
				require.Equal(t, 42, n)
			}
			return nil
		})
		require.NoError(t, err, "the statement ran on the transaction's connection")
		// The pool prepares it meanwhile, once the connection is free.
		require.Eventually(t, func() bool { return storage.PreparedOnPool(stmt) }, 10*time.Second, 10*time.Millisecond,
			"the pool prepares the statement once its connection is free")
		for range 2 {
			row, err := stmt.QueryRow(ctx, 1)
			require.NoError(t, err)
			var n int
			require.NoError(t, row.Scan(&n))
			require.Equal(t, 2, n)
		}
	})
}
