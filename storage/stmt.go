package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
)

// Stmt is a hot query prepared once and reused, so the engine does not parse
// it again on every call (bun formats each query afresh). It prepares on
// first use: nothing connects before the application starts.
type Stmt struct {
	db        *bun.DB
	query     string
	mu        sync.Mutex
	stmt      *sql.Stmt // prepared on the pool, once
	preparing bool      // on the pool, in the background (in)
}

// Prepare declares a statement written with ? placeholders; they are
// rewritten to $1, $2 … on PostgreSQL, and to +? on SQLite.
//
// The unary plus changes no value. It keeps a prepared statement's plan:
// once ANALYZE has sampled a column, SQLite plans a comparison of it with a
// bare placeholder by the value bound, so it prepares the statement again
// on every run with another value (a trip and its days, keyed by the trip,
// were parsed again on every read); with an expression in its place it
// plans once, by the column's statistics alone.
func Prepare(db *bun.DB, query string) *Stmt {
	pg := db.Dialect().Name() == dialect.PG
	var b strings.Builder
	n := 0
	for _, r := range query {
		switch {
		case r != '?':
			b.WriteRune(r)
		case pg:
			n++
			b.WriteString("$" + strconv.Itoa(n))
		default:
			b.WriteString("+?")
		}
	}
	return &Stmt{db: db, query: b.String()}
}

// SQL is the statement as the engine receives it (placeholders rewritten),
// for reading its plan.
func (s *Stmt) SQL() string { return s.query }

// QueryRow runs the statement, inside the transaction carried by ctx when
// there is one.
func (s *Stmt) QueryRow(ctx context.Context, args ...any) (*sql.Row, error) {
	stmt, err := s.in(ctx)
	if err != nil {
		return nil, err
	}
	return stmt.QueryRowContext(ctx, args...), nil
}

// Query runs the statement for its rows, inside the transaction carried by
// ctx when there is one. The caller closes the rows.
func (s *Stmt) Query(ctx context.Context, args ...any) (*sql.Rows, error) {
	stmt, err := s.in(ctx)
	if err != nil {
		return nil, err
	}
	return stmt.QueryContext(ctx, args...)
}

// Exec runs the statement for its effect, inside the transaction carried
// by ctx when there is one. Its arguments are bound, not written into the
// statement's text: a large value (a route's points) is copied once into
// the engine, where bun's text would be parsed out of the statement again.
func (s *Stmt) Exec(ctx context.Context, args ...any) (sql.Result, error) {
	stmt, err := s.in(ctx)
	if err != nil {
		return nil, err
	}
	return stmt.ExecContext(ctx, args...)
}

// in is the prepared statement as it runs in ctx: inside the transaction
// ctx carries, when there is one.
//
// Inside a transaction, a statement the pool has not prepared yet is
// prepared on the transaction's own connection for this call, and on the
// pool in the background: prepared on the pool here, it would wait for a
// free connection while holding this one, and under load every connection
// is held by a transaction waiting so (a statement's first runs in commit
// hooks, many writes at once).
func (s *Stmt) in(ctx context.Context) (*sql.Stmt, error) {
	tx, inTx := ctx.Value(txKey{}).(bun.Tx)
	if !inTx {
		return s.prepared(ctx)
	}
	s.mu.Lock()
	stmt, start := s.stmt, s.stmt == nil && !s.preparing
	s.preparing = s.preparing || start
	s.mu.Unlock()
	if stmt != nil {
		return tx.Tx.StmtContext(ctx, stmt), nil
	}
	if start {
		go func() {
			_, _ = s.prepared(context.Background()) // a failure is tried again at the next call
			s.mu.Lock()
			s.preparing = false
			s.mu.Unlock()
		}()
	}
	return tx.Tx.PrepareContext(ctx, s.query)
}

// Timestamp is a time as bun writes it on SQLite, for a bound argument:
// bun's own formatting, less its quotes, so a bound time reads and sorts
// as the times bun wrote.
func Timestamp(t time.Time) string {
	return strings.Trim(string(sqlitedialect.New().AppendTime(nil, t)), "'")
}

// prepared prepares the statement on the pool once it succeeds; a failure
// (the database down for a moment) is tried again on the next call. The
// lock is not held while it waits for a connection: two first calls may
// both prepare, and the later one's statement is closed.
func (s *Stmt) prepared(ctx context.Context) (*sql.Stmt, error) {
	s.mu.Lock()
	stmt := s.stmt
	s.mu.Unlock()
	if stmt != nil {
		return stmt, nil
	}
	stmt, err := s.db.DB.PrepareContext(ctx, s.query)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stmt != nil {
		_ = stmt.Close()
		return s.stmt, nil
	}
	s.stmt = stmt
	return stmt, nil
}

// NullTime scans a timestamp column on either engine: PostgreSQL hands a
// time.Time, SQLite the text bun wrote.
type NullTime struct {
	Time  time.Time
	Valid bool
}

// Scan implements sql.Scanner.
func (t *NullTime) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*t = NullTime{}
		return nil
	case time.Time:
		*t = NullTime{Time: v, Valid: true}
		return nil
	case string:
		return t.parse(v)
	case []byte:
		return t.parse(string(v))
	default:
		return fmt.Errorf("cannot scan %T as a timestamp", src)
	}
}

func (t *NullTime) parse(s string) error {
	if v, ok := parseWritten(s); ok {
		*t = NullTime{Time: v, Valid: true}
		return nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano} {
		if v, err := time.Parse(layout, s); err == nil {
			*t = NullTime{Time: v, Valid: true}
			return nil
		}
	}
	return fmt.Errorf("cannot read %q as a timestamp", s)
}

// parseWritten reads a time as bun writes it on SQLite
// ("2006-01-02 15:04:05.999999-07:00", the fraction optional) without
// time.Parse, which took a tenth of a listing's CPU: twenty trips read,
// two times each. It gives what time.Parse gives, location included, and
// false for any other text, which the layouts then read.
func parseWritten(s string) (time.Time, bool) {
	n := len(s)
	if n < len("2006-01-02 15:04:05-07:00") || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' ||
		s[n-3] != ':' || (s[n-6] != '+' && s[n-6] != '-') {
		return time.Time{}, false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	hour, ok4 := digits(s[11:13])
	minute, ok5 := digits(s[14:16])
	second, ok6 := digits(s[17:19])
	zh, ok7 := digits(s[n-5 : n-3])
	zm, ok8 := digits(s[n-2:])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8) || month < 1 || month > 12 || day < 1 ||
		day > daysIn(time.Month(month), year) || hour > 23 || minute > 59 || second > 59 || zh > 23 || zm > 59 {
		return time.Time{}, false
	}
	nanos := 0
	if frac := s[19 : n-6]; frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		f, ok := digits(frac[1:])
		if !ok {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			f *= 10
		}
		nanos = f
	}
	offset := (zh*60 + zm) * 60
	if s[n-6] == '-' {
		offset = -offset
	}
	v := time.Date(year, time.Month(month), day, hour, minute, second, nanos, time.UTC).Add(-time.Duration(offset) * time.Second)
	// As time.Parse: the local zone when its offset then is the one read,
	// a zone of that fixed offset otherwise.
	if local := v.In(time.Local); localOffset(local) == offset {
		return local, true
	}
	return v.In(time.FixedZone("", offset)), true
}

func localOffset(t time.Time) int {
	_, offset := t.Zone()
	return offset
}

// digits is the value of s, decimal digits only.
func digits(s string) (int, bool) {
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// daysIn is how many days month has in year.
func daysIn(month time.Month, year int) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
