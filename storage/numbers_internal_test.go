package storage

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// NumbersPool is numbersPool, for the package's external tests.
var NumbersPool = numbersPool

// numbersPool is a SQLite pool of one connection, so that every query
// meets the statements the one before it left prepared, with a table of
// numbers 1..n, the word of each "w" and its number.
func numbersPool(tb testing.TB, n int) *sql.DB {
	tb.Helper()
	pool, err := OpenSQLitePool(filepath.Join(tb.TempDir(), "numbers.db"))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = pool.Close() })
	pool.SetMaxOpenConns(1)
	ctx := context.Background()
	_, err = pool.ExecContext(ctx, "CREATE TABLE numbers (n INTEGER PRIMARY KEY, word TEXT)")
	require.NoError(tb, err)
	for i := 1; i <= n; i++ {
		_, err := pool.ExecContext(ctx, "INSERT INTO numbers (n, word) VALUES (?, ?)", i, fmt.Sprint("w", i))
		require.NoError(tb, err)
	}
	return pool
}

// PreparedOnPool reports whether the pool has prepared s, for the
// package's external tests.
func PreparedOnPool(s *Stmt) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stmt != nil
}
