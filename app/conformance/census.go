package conformance

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun/dialect"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/registry"
)

// census counts what calls change in the product's own tables: the tables
// its modules' migrations create (not the framework's, whose rows the
// guards write: keys, confirmations, jobs). Triggers the kit adds to each
// of those tables count every row inserted, updated and deleted in a table
// of the kit's own (conformance_census); a snapshot reads those counts, so
// it costs the same however many rows the tables hold. The triggers stay
// for the application's life: its database is the test's.
type census struct {
	a      *apptest.App
	tables []string
}

// censusTable is where the triggers count.
const censusTable = "conformance_census"

var censuses sync.Map // *apptest.App → *sync.Once, the triggers installed once

// newCensus lists the tables the product's modules create and adds the
// counting triggers to them, once per application.
func newCensus(t testing.TB, a *apptest.App) *census {
	t.Helper()
	var tables []string
	for _, m := range a.Product.Modules {
		for _, src := range m.Migrations {
			ts, err := src.Tables()
			if err != nil {
				t.Fatalf("the tables of %s: %v", m.Name, err)
			}
			tables = append(tables, ts...)
		}
	}
	slices.Sort(tables)
	c := &census{a: a, tables: slices.Compact(tables)}
	once, _ := censuses.LoadOrStore(a, &sync.Once{})
	var err error
	once.(*sync.Once).Do(func() { err = c.install(context.Background()) })
	if err != nil {
		t.Fatalf("counting the module's writes: %v", err)
	}
	return c
}

// install creates the counting table and a trigger per table and kind of
// write, on the application's engine.
func (c *census) install(ctx context.Context) error {
	db := c.a.DB
	pg := db.Dialect().Name() == dialect.PG
	stmts := []string{"CREATE TABLE IF NOT EXISTS " + censusTable +
		" (tbl TEXT NOT NULL, op TEXT NOT NULL, n BIGINT NOT NULL, PRIMARY KEY (tbl, op))"}
	if pg {
		stmts = append(stmts, `CREATE OR REPLACE FUNCTION conformance_count() RETURNS trigger AS $$
BEGIN
  INSERT INTO `+censusTable+` (tbl, op, n) VALUES (TG_TABLE_NAME, lower(TG_OP), 1)
  ON CONFLICT (tbl, op) DO UPDATE SET n = `+censusTable+`.n + 1;
  RETURN NULL;
END $$ LANGUAGE plpgsql`)
	}
	for _, table := range c.tables {
		if pg {
			stmts = append(stmts, fmt.Sprintf("CREATE TRIGGER conformance_%s AFTER INSERT OR UPDATE OR DELETE ON %s "+
				"FOR EACH ROW EXECUTE FUNCTION conformance_count()", table, table))
			continue
		}
		for _, op := range []string{"insert", "update", "delete"} {
			stmts = append(stmts, fmt.Sprintf("CREATE TRIGGER conformance_%s_%s AFTER %s ON %s BEGIN "+
				"INSERT INTO %s (tbl, op, n) VALUES ('%s', '%s', 1) ON CONFLICT (tbl, op) DO UPDATE SET n = n + 1; END",
				table, op, strings.ToUpper(op), table, censusTable, table, op))
		}
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// snapshot is how many rows of each table were inserted, updated and
// deleted so far, by "table op".
type snapshot map[string]int64

// take reads the counts.
func (c *census) take(t testing.TB) snapshot {
	t.Helper()
	rows, err := c.a.DB.QueryContext(context.Background(), "SELECT tbl, op, n FROM "+censusTable)
	if err != nil {
		t.Fatalf("read the write counts: %v", err)
	}
	defer rows.Close()
	out := snapshot{}
	for rows.Next() {
		var table, op string
		var n int64
		if err := rows.Scan(&table, &op, &n); err != nil {
			t.Fatalf("read the write counts: %v", err)
		}
		out[table+" "+op] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read the write counts: %v", err)
	}
	return out
}

// How long the counts must stay the same before a call is counted, and how
// long settled waits for that at the most.
const (
	censusQuiet    = 10 * time.Millisecond
	censusPatience = 2 * time.Second
)

// settled is a snapshot taken once the counts have stayed the same for
// censusQuiet: what an earlier call left to work in the background (a
// sign-in link a courier writes and mails after the answer) lands before
// it, not in the count of the next call.
func (c *census) settled(t testing.TB) snapshot {
	t.Helper()
	deadline := time.Now().Add(censusPatience)
	last := c.take(t)
	for time.Now().Before(deadline) {
		time.Sleep(censusQuiet)
		next := c.take(t)
		if maps.Equal(last, next) {
			return next
		}
		last = next
	}
	return last
}

// change is what happened to one table between two snapshots.
type change struct {
	table                      string
	inserted, updated, deleted int64
}

// changes lists what differs between two snapshots, by table.
func changes(before, after snapshot) []change {
	by := map[string]*change{}
	for k, n := range after {
		d := n - before[k]
		if d == 0 {
			continue
		}
		table, op, _ := strings.Cut(k, " ")
		c := by[table]
		if c == nil {
			c = &change{table: table}
			by[table] = c
		}
		switch op {
		case "insert":
			c.inserted += d
		case "update":
			c.updated += d
		case "delete":
			c.deleted += d
		}
	}
	out := make([]change, 0, len(by))
	for _, c := range by {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].table < out[j].table })
	return out
}

// describe says what changes hold, for a failure message.
func describe(cs []change) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s: %d row(s) inserted, %d updated, %d deleted", c.table, c.inserted, c.updated, c.deleted)
	}
	return strings.Join(parts, "; ")
}

// addedTo is how many rows cs inserted into table, less those it deleted.
func addedTo(cs []change, table string) int64 {
	for _, c := range cs {
		if c.table == table {
			return c.inserted - c.deleted
		}
	}
	return 0
}

// recordTable is the table the operation's record is stored in (its bun
// model's table), or "" when the record type names none.
func recordTable(op *registry.Operation) string {
	t := op.RecordType
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.Anonymous {
			continue
		}
		for _, part := range strings.Split(f.Tag.Get("bun"), ",") {
			if name, ok := strings.CutPrefix(part, "table:"); ok {
				name, _, _ = strings.Cut(name, " ")
				return strings.Trim(name, `"`)
			}
		}
	}
	return ""
}
