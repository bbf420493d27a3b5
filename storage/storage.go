// Package storage is the storage contract between the framework and the
// modules: it opens the database (SQLite embedded by default, PostgreSQL when
// a postgres URL is configured), applies the collected migrations, and
// carries one transaction in the context so that a guard and a module share
// it.
//
// The rule for a module: every query goes through Conn(ctx, db) (or a Stmt),
// never through the *bun.DB itself. The idempotency guard runs a creation in
// a transaction it opened (Tx.InTx) and carries it in the context; Conn
// answers that transaction, so the module's writes commit and roll back with
// the guard's key, and a module's own InTx joins it. A query made beside the
// transaction would wait for it on SQLite (one writer at a time) and would
// not commit with it on PostgreSQL. On SQLite such a query is refused at
// once with ErrBesideTx, so the module's own tests show the mistake; on
// PostgreSQL nothing can tell, and the rule alone holds.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/migrate"
	"modernc.org/sqlite" // the pure-Go SQLite driver

	"cairn.dev/cairn/registry"
)

// Engine names the database engine behind a DB.
type Engine string

// The engines.
const (
	SQLite   Engine = "sqlite"
	Postgres Engine = "postgres"
)

// Open connects to url: a postgres:// or postgresql:// URL, or a SQLite file
// path (sqlite:PATH, file:PATH or a bare path). An empty url means the
// embedded default, cairn.db in dataDir.
func Open(url, dataDir string) (*bun.DB, Engine, error) {
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		sqldb, err := sql.Open("pgx", url)
		if err != nil {
			return nil, "", err
		}
		// Keep every connection open between bursts: database/sql keeps two
		// idle by default, and each new one is a server process to start
		// and statements to prepare again.
		sqldb.SetMaxOpenConns(20)
		sqldb.SetMaxIdleConns(20)
		return bun.NewDB(sqldb, pgdialect.New()), Postgres, nil
	default:
		path := SQLitePath(url, dataDir)
		if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
			return nil, "", fmt.Errorf("data directory %s: %w", filepath.Dir(path), err)
		}
		db, err := OpenSQLite(path)
		return db, SQLite, err
	}
}

// OpenSQLite opens a SQLite file. Writers take the lock when a transaction
// begins (immediate), so concurrent writers queue on busy_timeout instead of
// failing when they upgrade a read lock; WAL lets readers run meanwhile.
func OpenSQLite(path string) (*bun.DB, error) {
	sqldb, err := OpenSQLitePool(path)
	if err != nil {
		return nil, err
	}
	sqldb.SetMaxOpenConns(8)
	sqldb.SetMaxIdleConns(8) // a new connection opens the file and prepares its statements again
	return bun.NewDB(sqldb, sqlitedialect.New()), nil
}

// OpenSQLitePool opens a plain database/sql pool on a SQLite file with the
// settings every pool on that file must share. Its connections refuse a
// query run beside the transaction its context carries (ErrBesideTx).
func OpenSQLitePool(path string) (*sql.DB, error) {
	return openSQLitePool(path, 10000)
}

// openSQLitePool opens the pool with SQLite's wait for the write lock
// bounded to busyMillis.
func openSQLitePool(path string, busyMillis int) (*sql.DB, error) {
	dsn := "file:" + path + "?_txlock=immediate" +
		"&_pragma=busy_timeout(" + strconv.Itoa(busyMillis) + ")&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	inner, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(sqliteConnector{inner: inner, gate: gateFor(path)}), nil
}

// SQLitePath is where Open puts the SQLite file for url and dataDir ("" for
// PostgreSQL).
func SQLitePath(url, dataDir string) string {
	if strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://") {
		return ""
	}
	path := strings.TrimPrefix(strings.TrimPrefix(url, "sqlite:"), "file:")
	if path == "" {
		path = filepath.Join(dataDir, "cairn.db")
	}
	return path
}

// Migrate applies every pending migration of ms (see migrations.Collect)
// and reports how many ran.
func Migrate(ctx context.Context, db *bun.DB, ms *migrate.Migrations) (int, error) {
	m := migrate.NewMigrator(db, ms)
	if err := m.Init(ctx); err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	group, err := m.Migrate(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	if group.IsZero() {
		return 0, nil
	}
	return len(group.Migrations), nil
}

// Pending reports how many migrations of ms have not been applied.
func Pending(ctx context.Context, db *bun.DB, ms *migrate.Migrations) (int, error) {
	m := migrate.NewMigrator(db, ms)
	if err := m.Init(ctx); err != nil {
		return 0, err
	}
	status, err := m.MigrationsWithStatus(ctx)
	if err != nil {
		return 0, err
	}
	return len(status.Unapplied()), nil
}

type txKey struct{}

// Tx runs functions in one transaction carried by the context. It implements
// guards.Transactor.
type Tx struct{ DB *bun.DB }

// InTx runs fn in a transaction; a call made inside one joins it. The
// transaction runs on one connection taken from the pool, which the context
// names on SQLite so that the others refuse its queries (ErrBesideTx).
func (t Tx) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	return t.run(ctx, nil, fn)
}

// ReadOnly runs fn in a read-only transaction carried by ctx, where a
// write fails loudly on both engines: PostgreSQL refuses it ("cannot
// execute … in a read-only transaction"), SQLite refuses the transaction's
// commit and rolls back what it wrote ("attempt to write a readonly
// database"). The guards run
// the functions a declaration gives them that must only read (Load, Merge,
// an impact) in one, so a module that writes there is caught on either
// engine by its own tests, and what names such a write is its error:
// ReadOnly wraps a refused write as registry.ErrWroteWhileReading, naming
// what.
// Inside a transaction already carried by ctx, fn joins it unchecked.
func (t Tx) ReadOnly(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	err := t.run(ctx, &sql.TxOptions{ReadOnly: true}, fn)
	if err != nil && refusedWrite(err) {
		return fmt.Errorf("%w: %s wrote to the database (%w)", registry.ErrWroteWhileReading, what, err)
	}
	return err
}

// refusedWrite reports whether err, or an error it wraps, is either
// engine's refusal of a write inside a read-only transaction: a module
// may wrap it in an error of its own whose text hides the cause.
func refusedWrite(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	if strings.Contains(s, "SQLSTATE 25006") || strings.Contains(s, "read-only transaction") ||
		strings.Contains(s, "attempt to write a readonly database") {
		return true
	}
	switch x := err.(type) {
	case interface{ Unwrap() error }:
		return refusedWrite(x.Unwrap())
	case interface{ Unwrap() []error }:
		for _, e := range x.Unwrap() {
			if refusedWrite(e) {
				return true
			}
		}
	}
	return false
}

func (t Tx) run(ctx context.Context, opts *sql.TxOptions, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return fn(ctx)
	}
	conn, err := t.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	owner := &txOwner{}
	defer owner.ended.Store(true) // before the connection goes back to the pool
	if err := conn.Raw(func(dc any) error {
		owner.conn, _ = dc.(*sqliteConn) // nil on PostgreSQL: nothing to refuse there
		return nil
	}); err != nil {
		return err
	}
	hooks := &commitHooks{}
	err = conn.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		ctx = context.WithValue(ctx, txKey{}, tx)
		ctx = context.WithValue(ctx, hooksKey{}, hooks)
		if owner.conn != nil {
			ctx = context.WithValue(ctx, ownerKey{}, owner)
		}
		if err := fn(ctx); err != nil {
			return err
		}
		return hooks.beforeCommit(ctx)
	})
	if err == nil {
		hooks.run()
	}
	return err
}

// commitHooks are what AfterCommit and BeforeCommit were given inside one
// transaction.
type commitHooks struct {
	mu     sync.Mutex
	fns    []func()
	before []string                               // BeforeCommit's keys, in order
	byKey  map[string]func(context.Context) error // the last function given each key
}

// beforeCommit runs BeforeCommit's functions, each key's once, including
// those the functions themselves give.
func (h *commitHooks) beforeCommit(ctx context.Context) error {
	for {
		h.mu.Lock()
		if len(h.before) == 0 {
			h.mu.Unlock()
			return nil
		}
		key := h.before[0]
		h.before = h.before[1:]
		fn := h.byKey[key]
		delete(h.byKey, key)
		h.mu.Unlock()
		if err := fn(ctx); err != nil {
			return err
		}
	}
}

type hooksKey struct{}

func (h *commitHooks) run() {
	h.mu.Lock()
	fns := h.fns
	h.fns = nil
	h.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// AfterCommit runs fn once the transaction carried by ctx has committed,
// and never when it rolls back; outside a transaction it runs fn at once.
// A cache of what the transaction writes forgets it here: forgotten before
// the commit, the old rows could be read and remembered again meanwhile.
func AfterCommit(ctx context.Context, fn func()) {
	if h, ok := ctx.Value(hooksKey{}).(*commitHooks); ok {
		h.mu.Lock()
		h.fns = append(h.fns, fn)
		h.mu.Unlock()
		return
	}
	fn()
}

// BeforeCommit runs fn inside the transaction carried by ctx, once the
// transaction's work has succeeded and before it commits; its error rolls
// the transaction back. A key given again within one transaction runs once,
// with the last fn given: what is derived from many writes is derived once,
// from all of them. Outside a transaction it runs fn at once.
func BeforeCommit(ctx context.Context, key string, fn func(ctx context.Context) error) error {
	h, ok := ctx.Value(hooksKey{}).(*commitHooks)
	if !ok {
		return fn(ctx)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byKey == nil {
		h.byKey = map[string]func(context.Context) error{}
	}
	if _, queued := h.byKey[key]; !queued {
		h.before = append(h.before, key)
	}
	h.byKey[key] = fn
	return nil
}

// Conn returns the transaction carried by ctx, or db itself.
func Conn(ctx context.Context, db *bun.DB) bun.IDB {
	if tx, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return tx
	}
	return db
}

// SQLTx returns the database/sql transaction carried by ctx, for libraries
// that join it (the job queue).
func SQLTx(ctx context.Context) (*sql.Tx, bool) {
	if tx, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return tx.Tx, true
	}
	return nil, false
}

// NoRows reports whether err means a query found nothing.
func NoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// IsUniqueViolation reports whether err is a unique constraint violation on
// either engine.
func IsUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "SQLSTATE 23505") || strings.Contains(s, "UNIQUE constraint failed")
}
