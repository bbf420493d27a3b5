package storage

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
)

// Notices carries what one replica wrote to the others sharing its
// PostgreSQL database (LISTEN/NOTIFY), so that what they remember of it
// is forgotten within milliseconds rather than at their next check. A
// notice sent inside a transaction (Notify) is delivered when the
// transaction commits, and never when it rolls back.
//
// Listening holds one connection of the pool. While it is down (the
// connection lost, the database restarting) notices sent meanwhile are
// lost: Heard says so (0), and a reader then checks what it remembers as
// it would without notices. Each time listening starts again its generation
// moves on, so what was remembered before the gap is checked too.
//
// On SQLite there is no other process to tell: NewNotices answers nil,
// and a nil *Notices hears nothing and is never live.
type Notices struct {
	db  *bun.DB
	log *slog.Logger

	mu      sync.Mutex
	hearers map[string][]func(payload string) // by channel
	started bool

	gen  atomic.Uint64 // moves on each time listening starts
	live atomic.Bool   // listening now: every notice sent is heard

	stop context.CancelFunc
	done chan struct{}
}

// NewNotices returns the notices of db: nil unless db is PostgreSQL.
func NewNotices(db *bun.DB, log *slog.Logger) *Notices {
	if db.Dialect().Name() != dialect.PG {
		return nil
	}
	return &Notices{db: db, log: log, hearers: map[string][]func(string){}}
}

// Hear calls fn with the payload of every notice sent on channel by any
// replica, this one included, from the listener's own goroutine: fn must
// be quick. It is called before Start.
func (n *Notices) Hear(channel string, fn func(payload string)) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.started {
		panic("storage: Notices.Hear after Start") // wiring order: a programming error
	}
	n.hearers[channel] = append(n.hearers[channel], fn)
}

// Heard reports the generation of the listening now, 0 while nothing
// listens (generations start at 1). Something remembered under one
// generation may be given without a check as long as Heard answers the
// same: no notice can have been missed in between.
func (n *Notices) Heard() uint64 {
	// live first: a generation read after it is at least the one it
	// belongs to, so a listening lost in between shows as a new one.
	if n == nil || !n.live.Load() {
		return 0
	}
	return n.gen.Load()
}

// Start listens until Close, starting again after any failure (waiting
// up to 5 s between attempts).
func (n *Notices) Start() {
	if n == nil {
		return
	}
	n.mu.Lock()
	n.started = true
	n.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	n.stop, n.done = cancel, make(chan struct{})
	go n.run(ctx)
}

// Close stops listening and gives its connection back, closed.
func (n *Notices) Close() {
	if n == nil || n.stop == nil {
		return
	}
	n.stop()
	<-n.done
}

func (n *Notices) run(ctx context.Context) {
	defer close(n.done)
	const first, most = 100 * time.Millisecond, 5 * time.Second
	wait := first
	for {
		began := time.Now()
		err := n.listen(ctx)
		n.live.Store(false)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > most {
			wait = first // it listened a while: the failure is new
		}
		n.log.Warn("not hearing other replicas' writes: reading revisions meanwhile", "err", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, most)
	}
}

// listen takes a connection of the pool, listens on every channel heard and
// hands each notice over until ctx ends or the connection fails. The
// connection is closed after, never given back: it listens still.
func (n *Notices) listen(ctx context.Context) error {
	conn, err := n.db.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	n.mu.Lock()
	hearers := n.hearers
	n.mu.Unlock()
	return conn.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("storage: notices need the pgx driver, not %T", dc)
		}
		c := sc.Conn()
		for channel := range hearers {
			if _, err := c.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
				return errors.Join(driver.ErrBadConn, err)
			}
		}
		n.gen.Add(1)
		n.live.Store(true)
		for {
			note, err := c.WaitForNotification(ctx)
			if err != nil {
				n.live.Store(false)
				return errors.Join(driver.ErrBadConn, err) // closes the connection: it listens
			}
			for _, fn := range hearers[note.Channel] {
				fn(note.Payload)
			}
		}
	})
}

// Notify sends payload on channel to every replica listening (Notices),
// inside the transaction ctx carries, so that it is heard once the
// transaction commits; outside one it is sent at once. On SQLite it does
// nothing: one process holds the file.
func Notify(ctx context.Context, db *bun.DB, channel, payload string) error {
	if db.Dialect().Name() != dialect.PG {
		return nil
	}
	_, err := Conn(ctx, db).ExecContext(ctx, "SELECT pg_notify(?, ?)", channel, payload)
	return err
}
