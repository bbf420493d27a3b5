package storage

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"
	"modernc.org/sqlite"
)

// TestAReadOnlyTransactionKeepsStatementsPrepared: ending a read-only
// transaction leaves its connection's prepared statements as they were, so
// the next run of each is not compiled again. Setting query_only for the
// transaction, then clearing it, expired every statement of the connection
// twice: an edit, whose guards read in one, compiled its held statements
// again.
func TestAReadOnlyTransactionKeepsStatementsPrepared(t *testing.T) {
	t.Parallel()
	pool := numbersPool(t, 1)
	ctx := context.Background()

	// The authorizer is asked at each compilation: its reads of the table
	// count them.
	compiled := 0
	conn, err := pool.Conn(ctx)
	require.NoError(t, err)
	require.NoError(t, conn.Raw(func(dc any) error {
		return dc.(*sqliteConn).inner.(sqlite.AuthorizerRegisterer).RegisterAuthorizer(
			func(action sqlite.AuthorizerActionCode, table, _, _, _ string) sqlite.AuthorizerReturnCode {
				if action == sqlite.AuthRead && table == "numbers" {
					compiled++
				}
				return sqlite.AuthorizerOK
			})
	}))
	require.NoError(t, conn.Close())
	read := func(q interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}) {
		var w string
		require.NoError(t, q.QueryRowContext(ctx, "SELECT word FROM numbers WHERE n = ?", 1).Scan(&w))
		require.Equal(t, "w1", w)
	}

	read(pool)
	once := compiled
	require.Positive(t, once)
	read(pool)
	require.Equal(t, once, compiled, "a held statement runs again as it was compiled")

	for _, end := range []string{"commit", "rollback"} {
		tx, err := pool.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		require.NoError(t, err)
		read(tx)
		if end == "commit" {
			require.NoError(t, tx.Commit())
		} else {
			require.NoError(t, tx.Rollback())
		}
		before := compiled
		read(pool)
		require.Equal(t, before, compiled, "after a read-only transaction's %s, the statement is not compiled again", end)
	}
}
