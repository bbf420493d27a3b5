package storage_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// TestAnalyzedSQLiteKeepsThePreparedPlan: once ANALYZE has gathered its
// samples, SQLite re-plans a statement on every run whose placeholder is
// compared with a column it has samples of, since the plan may depend on
// the value. The join of a trip and its days, keyed by the trip, is such a
// statement: re-planned, it is parsed again on every read. What Prepare
// sends the engine is planned once.
func TestAnalyzedSQLiteKeepsThePreparedPlan(t *testing.T) {
	t.Parallel()
	db, path := storagetest.SQLiteFile(t)
	ctx := context.Background()
	for _, q := range []string{
		`CREATE TABLE parents (id TEXT PRIMARY KEY, owner TEXT NOT NULL)`,
		`CREATE TABLE children (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL, position INTEGER NOT NULL)`,
		`CREATE INDEX children_parent ON children (parent_id, position)`,
		`CREATE INDEX parents_owner ON parents (owner)`,
	} {
		_, err := db.ExecContext(ctx, q)
		require.NoError(t, err)
	}
	for p := range 200 {
		_, err := db.ExecContext(ctx, `INSERT INTO parents VALUES (?, ?)`, fmt.Sprint("p", p), fmt.Sprint("o", p/10))
		require.NoError(t, err)
		for c := range 1 + p%7 {
			_, err := db.ExecContext(ctx, `INSERT INTO children VALUES (?, ?, ?)`, fmt.Sprint("c", p, "-", c), fmt.Sprint("p", p), c)
			require.NoError(t, err)
		}
	}
	_, err := db.ExecContext(ctx, `ANALYZE`)
	require.NoError(t, err)

	statements := []struct {
		name, query string
		args        [2]string
	}{
		{"a parent joined with its children", `SELECT p.id, c.id FROM parents AS p LEFT JOIN children AS c ON c.parent_id = p.id WHERE p.id = ? ORDER BY c.position`, [2]string{"p3", "p4"}},
		{"an owner's parents", `SELECT id FROM parents WHERE owner = ? ORDER BY id LIMIT ?`, [2]string{"o1", "o2"}},
	}
	for _, st := range statements {
		t.Run(st.name, func(t *testing.T) {
			// The statement as written is the control: it is re-planned,
			// so the count below can tell.
			require.Positive(t, replans(t, path, st.query, st.args), "as written, %s", st.query)
			prepared := storage.Prepare(db, st.query).SQL()
			require.Zero(t, replans(t, path, prepared, st.args), "as prepared, %s", prepared)
		})
	}
}

// replans runs query, through SQLite's own interface, once with each
// argument (and 5 for any second placeholder), and counts the times SQLite
// prepared it again.
func replans(t *testing.T, path, query string, args [2]string) int {
	t.Helper()
	tls := libc.NewTLS()
	defer tls.Close()
	cstr := func(s string) uintptr {
		p, err := libc.CString(s)
		require.NoError(t, err)
		t.Cleanup(func() { libc.Xfree(tls, p) })
		return p
	}
	out := new(uintptr) // a heap word, which the collector does not move
	defer runtime.KeepAlive(out)
	require.EqualValues(t, sqlite3.SQLITE_OK, sqlite3.Xsqlite3_open_v2(tls, cstr(path), uintptr(unsafe.Pointer(out)), sqlite3.SQLITE_OPEN_READONLY, 0))
	conn := *out
	defer sqlite3.Xsqlite3_close(tls, conn)
	require.EqualValues(t, sqlite3.SQLITE_OK, sqlite3.Xsqlite3_prepare_v2(tls, conn, cstr(query), -1, uintptr(unsafe.Pointer(out)), 0))
	stmt := *out
	defer sqlite3.Xsqlite3_finalize(tls, stmt)
	for _, arg := range args {
		require.EqualValues(t, sqlite3.SQLITE_OK, sqlite3.Xsqlite3_bind_text(tls, stmt, 1, cstr(arg), -1, 0))
		sqlite3.Xsqlite3_bind_int(tls, stmt, 2, 5)
		rc := sqlite3.Xsqlite3_step(tls, stmt)
		for rc == sqlite3.SQLITE_ROW {
			rc = sqlite3.Xsqlite3_step(tls, stmt)
		}
		require.EqualValues(t, sqlite3.SQLITE_DONE, rc)
		sqlite3.Xsqlite3_reset(tls, stmt)
	}
	return int(sqlite3.Xsqlite3_stmt_status(tls, stmt, sqlite3.SQLITE_STMTSTATUS_REPREPARE, 0))
}
