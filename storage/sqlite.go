package storage

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"modernc.org/sqlite"
)

// A SQLite file has one writer at a time, and a transaction InTx opens takes
// the write lock when it begins (_txlock=immediate). A query run with that
// transaction's context on another connection (a module that wrote through
// the *bun.DB instead of Conn(ctx, db)) would wait busy_timeout for a lock
// its own caller holds, then fail with SQLITE_BUSY; a read there would not
// see the transaction's writes. The connections below know which of them
// holds the transaction a context carries, and any other refuses such a
// query at once, saying what to do.

// ErrBesideTx is the refusal, on SQLite, of a query that ran on another
// connection than the transaction its context carries.
var ErrBesideTx = errors.New("storage: a query ran beside the transaction carried by its context " +
	"(the one the idempotency guard or storage.Tx opened); run it through storage.Conn(ctx, db) " +
	"or a storage.Stmt so that it joins the transaction")

type ownerKey struct{}

// txOwner names the connection holding a context's transaction, until the
// transaction ends: work that outlives it (a goroutine keeping the context)
// is not refused afterwards.
type txOwner struct {
	conn  *sqliteConn
	ended atomic.Bool
}

// sqliteDriverConn is what database/sql uses of a SQLite connection; the
// wrapper forwards each of these, so the pool behaves as on the bare driver.
type sqliteDriverConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

type sqliteDriverStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// sqliteConnector opens guarded connections through the driver's own
// connector, which reads the DSN's pragmas and _txlock.
type sqliteConnector struct {
	inner driver.Connector
	gate  *writeGate
}

func (c sqliteConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return guard(dc, c.gate)
}

func (c sqliteConnector) Driver() driver.Driver { return sqliteDriver{c.inner.Driver()} }

type sqliteDriver struct{ inner driver.Driver }

// Open opens the file name ("file:path?pragmas") names, behind that file's
// gate: name may be another file than the pool's.
func (d sqliteDriver) Open(name string) (driver.Conn, error) {
	dc, err := d.inner.Open(name)
	if err != nil {
		return nil, err
	}
	path, _, _ := strings.Cut(strings.TrimPrefix(name, "file:"), "?")
	return guard(dc, gateFor(path))
}

func guard(dc driver.Conn, gate *writeGate) (driver.Conn, error) {
	inner, ok := dc.(sqliteDriverConn)
	if !ok {
		_ = dc.Close()
		return nil, fmt.Errorf("storage: the SQLite driver's connection %T lacks a context method database/sql needs", dc)
	}
	c := &sqliteConn{inner: inner, gate: gate}
	hooked, ok := dc.(interface{ RegisterCommitHook(sqlite.CommitHookFn) })
	if !ok {
		_ = dc.Close()
		return nil, fmt.Errorf("storage: the SQLite driver's connection %T cannot refuse a commit", dc)
	}
	// A transaction that wrote, begun read-only, is rolled back at its
	// commit; SQLite calls the hook only for a transaction that wrote.
	hooked.RegisterCommitHook(func() int32 {
		if c.reading {
			c.wrote = true
			return 1
		}
		return 0
	})
	return c, nil
}

// sqliteConn is a driver connection that refuses a query belonging to a
// transaction another connection holds.
type sqliteConn struct {
	inner sqliteDriverConn
	// reading is set while a read-only transaction is open, and wrote
	// once its commit was refused because it wrote. The connection is used
	// by one goroutine at a time, and the commit hook runs on it.
	reading, wrote bool
	// gate queues the file's write transactions in this process; writing
	// is set while this connection's holds it.
	gate    *writeGate
	writing bool
	// held keeps prepared the queries that come with arguments: the
	// same text each time (the job queue's own, a module's raw
	// queries), parsed once per connection instead of at every call. A
	// query without arguments is run as it comes: bun writes its values
	// into the text, which then seldom repeats.
	held map[string]*heldStmt
}

// heldStmt is a statement a connection keeps prepared; busy while rows of
// it are open, when the same text is run apart.
type heldStmt struct {
	inner sqliteDriverStmt
	busy  bool
}

// maxHeldStmts bounds the statements a connection keeps prepared.
const maxHeldStmts = 64

// prepared is the connection's held statement for query, prepared now if
// it was not, or nil: the statement is busy, or none can be held.
func (c *sqliteConn) prepared(ctx context.Context, query string) *heldStmt {
	if h, ok := c.held[query]; ok {
		if h.busy {
			return nil
		}
		return h
	}
	if len(c.held) >= maxHeldStmts && !c.dropIdle() {
		return nil
	}
	ds, err := c.inner.PrepareContext(ctx, query)
	if err != nil {
		return nil // run as it comes, which reports the error
	}
	inner, ok := ds.(sqliteDriverStmt)
	if !ok {
		_ = ds.Close()
		return nil
	}
	if c.held == nil {
		c.held = map[string]*heldStmt{}
	}
	h := &heldStmt{inner: inner}
	c.held[query] = h
	return h
}

// dropIdle closes one held statement no rows use, and reports whether it
// found one.
func (c *sqliteConn) dropIdle() bool {
	for q, h := range c.held {
		if !h.busy {
			_ = h.inner.Close()
			delete(c.held, q)
			return true
		}
	}
	return false
}

// sqliteRows is what database/sql uses of the driver's rows.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// heldRows are rows of a held statement, which they free when closed.
type heldRows struct {
	sqliteRows
	held *heldStmt
}

func (r heldRows) Close() error {
	err := r.sqliteRows.Close()
	r.held.busy = false
	return err
}

func (c *sqliteConn) refuse(ctx context.Context, query string) error {
	o, ok := ctx.Value(ownerKey{}).(*txOwner)
	if !ok || o.conn == c || o.ended.Load() {
		return nil
	}
	return fmt.Errorf("%w (query: %s)", ErrBesideTx, excerpt(query))
}

func (c *sqliteConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// PrepareContext is not refused: preparing takes no lock, and a Stmt
// prepared on the pool is prepared again on the transaction's connection.
func (c *sqliteConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	ds, err := c.inner.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	inner, ok := ds.(sqliteDriverStmt)
	if !ok {
		_ = ds.Close()
		return nil, fmt.Errorf("storage: the SQLite driver's statement %T lacks a context method database/sql needs", ds)
	}
	return &sqliteStmt{conn: c, inner: inner, query: query}, nil
}

func (c *sqliteConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx begins a transaction. A read-only one is a deferred BEGIN (the
// driver takes no write lock for it) whose commit is refused, and what it
// wrote rolled back, when it wrote (the commit hook of guard): the error
// then says it wrote. Setting query_only instead would refuse the write
// itself, but setting and clearing it expires every statement the
// connection holds prepared, which are then compiled again at their next
// run.
func (c *sqliteConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := c.refuse(ctx, "BEGIN"); err != nil {
		return nil, err
	}
	if !opts.ReadOnly {
		return c.beginWrite(ctx, opts)
	}
	tx, err := c.inner.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	c.reading, c.wrote = true, false
	return readOnlyTx{conn: c, inner: tx}, nil
}

// errWroteWhileReading is a read-only transaction's refused commit: what
// it wrote is rolled back. Its words are those refusedWrite knows.
var errWroteWhileReading = errors.New("attempt to write a readonly database: a read-only transaction wrote, and was rolled back")

// readOnlyTx ends a read-only transaction.
type readOnlyTx struct {
	conn  *sqliteConn
	inner driver.Tx
}

func (t readOnlyTx) Commit() error {
	err := t.inner.Commit()
	t.conn.reading = false
	if t.conn.wrote {
		return errors.Join(errWroteWhileReading, err)
	}
	return err
}

func (t readOnlyTx) Rollback() error {
	t.conn.reading = false
	return t.inner.Rollback()
}

func (c *sqliteConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := c.refuse(ctx, query); err != nil {
		return nil, err
	}
	if len(args) > 0 {
		if h := c.prepared(ctx, query); h != nil {
			return h.inner.ExecContext(ctx, args)
		}
	}
	return c.inner.ExecContext(ctx, query, args)
}

func (c *sqliteConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.refuse(ctx, query); err != nil {
		return nil, err
	}
	if len(args) > 0 {
		if h := c.prepared(ctx, query); h != nil {
			rows, err := h.inner.QueryContext(ctx, args)
			if err != nil {
				return nil, err
			}
			h.busy = true
			if sr, ok := rows.(sqliteRows); ok {
				return heldRows{sqliteRows: sr, held: h}, nil
			}
			return rows, nil // never freed: the text is run apart from now on
		}
	}
	return c.inner.QueryContext(ctx, query, args)
}

// Close finalizes the held statements first: SQLite does not close a
// connection with statements open.
func (c *sqliteConn) Close() error {
	defer c.endWrite()
	for q, h := range c.held {
		_ = h.inner.Close()
		delete(c.held, q)
	}
	return c.inner.Close()
}

func (c *sqliteConn) Ping(ctx context.Context) error         { return c.inner.Ping(ctx) }
func (c *sqliteConn) ResetSession(ctx context.Context) error { return c.inner.ResetSession(ctx) }
func (c *sqliteConn) IsValid() bool                          { return c.inner.IsValid() }

type sqliteStmt struct {
	conn  *sqliteConn
	inner sqliteDriverStmt
	query string
}

func (s *sqliteStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if err := s.conn.refuse(ctx, s.query); err != nil {
		return nil, err
	}
	return s.inner.ExecContext(ctx, args)
}

func (s *sqliteStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.conn.refuse(ctx, s.query); err != nil {
		return nil, err
	}
	return s.inner.QueryContext(ctx, args)
}

// Exec and Query complete driver.Stmt; database/sql calls the context forms.
func (s *sqliteStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *sqliteStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s *sqliteStmt) Close() error  { return s.inner.Close() }
func (s *sqliteStmt) NumInput() int { return s.inner.NumInput() }

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

// excerpt is the start of a query: enough to find it in the module's code,
// without copying the whole text (and most values bun writes into it) into
// the error.
func excerpt(query string) string {
	q := strings.Join(strings.Fields(query), " ")
	if r := []rune(q); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return q
}
