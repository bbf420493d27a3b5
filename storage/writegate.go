package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"database/sql/driver"
)

// A SQLite file has one writer at a time. A writer that finds the lock held
// waits in SQLite's busy handler, which does not wake when the lock is
// freed: it sleeps 1, 2, 5, 10 … up to 100 ms between tries, so a write
// that queued behind a few others waits hundreds of milliseconds for a
// lock that was free after a few. The write transactions of one process
// (every pool it opens on the file, the job queue's included) therefore
// queue on a writeGate first, in the order they came, and each is let
// through the moment the one before it ends; SQLite's busy handler is left
// for writers outside the gate (another process, a statement run outside a
// transaction).

// writeGate lets one write transaction on a SQLite file through at a time.
type writeGate struct {
	held    chan struct{}
	waiting atomic.Int32 // transactions waiting to enter
}

// gateWait bounds a wait at the gate, as busy_timeout bounds one at the lock.
const gateWait = 10 * time.Second

var gates sync.Map // absolute path → *writeGate

// gateFor is the gate of the file at path, shared by every pool this
// process opens on it.
func gateFor(path string) *writeGate {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	g, _ := gates.LoadOrStore(path, &writeGate{held: make(chan struct{}, 1)})
	return g.(*writeGate)
}

// enter waits for the gate until ctx ends or gateWait passes. Waiters on a
// channel are served in the order they came.
func (g *writeGate) enter(ctx context.Context) error {
	select {
	case g.held <- struct{}{}:
		return nil
	default:
	}
	g.waiting.Add(1)
	defer g.waiting.Add(-1)
	t := time.NewTimer(gateWait)
	defer t.Stop()
	select {
	case g.held <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("storage: waited %s for the SQLite write lock, held by another transaction of this process (SQLITE_BUSY)", gateWait)
	}
}

func (g *writeGate) leave() { <-g.held }

// gatedTx is a write transaction that holds its file's gate until it ends.
type gatedTx struct {
	conn  *sqliteConn
	inner driver.Tx
}

func (t gatedTx) Commit() error {
	defer t.conn.endWrite()
	return t.inner.Commit()
}

func (t gatedTx) Rollback() error {
	defer t.conn.endWrite()
	return t.inner.Rollback()
}

// beginWrite begins a write transaction once the gate lets it through.
func (c *sqliteConn) beginWrite(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if err := c.gate.enter(ctx); err != nil {
		return nil, err
	}
	tx, err := c.inner.BeginTx(ctx, opts)
	if err != nil {
		c.gate.leave()
		return nil, err
	}
	c.writing = true
	return gatedTx{conn: c, inner: tx}, nil
}

// endWrite lets the next writer through, once: a connection closed with its
// transaction open ends it too.
func (c *sqliteConn) endWrite() {
	if c.writing {
		c.writing = false
		c.gate.leave()
	}
}
