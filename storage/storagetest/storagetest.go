// Package storagetest gives tests a migrated database of their own: a SQLite file
// in a temporary folder, or a fresh PostgreSQL database created for the test
// and dropped after it. A missing PostgreSQL skips loudly outside CI and
// fails under CI=true, so CI never passes without the real engine.
package storagetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/storage"
)

// AdminURL is the PostgreSQL server used to create test databases; override
// it with CAIRN_TEST_POSTGRES_URL.
func AdminURL() string {
	if u := os.Getenv("CAIRN_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// Unavailable skips the test with a loud message, or fails it under CI.
func Unavailable(t testing.TB, service string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required under CI=true and is not reachable: %v", service, err)
	}
	t.Skipf("SKIPPED: %s is not reachable (%v); these tests need the real service and run under CI", service, err)
}

// SQLite returns a SQLite database in a temporary folder, migrated with the
// framework's tables and the given modules' migrations.
func SQLite(t testing.TB, sources ...migrations.Source) *bun.DB {
	t.Helper()
	db, _ := SQLiteFile(t, sources...)
	return db
}

// SQLiteFile is SQLite, also answering the file's path (for a second pool
// on the same file, as the job queue opens).
func SQLiteFile(t testing.TB, sources ...migrations.Source) (*bun.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cairn.db")
	db, err := storage.OpenSQLite(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	migrate(t, db, sources)
	return db, path
}

// PostgresURL creates an empty database for this test and returns its URL;
// the database is dropped when the test ends.
func PostgresURL(t testing.TB) string {
	t.Helper()
	admin, err := sql.Open("pgx", AdminURL())
	if err != nil {
		Unavailable(t, "PostgreSQL", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // CREATE DATABASE queues behind its peers under load
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		admin.Close()
		Unavailable(t, "PostgreSQL", err)
	}
	name := "cairn_test_" + randomHex(6)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close()
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		defer admin.Close()
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	return withDatabase(AdminURL(), name)
}

// Postgres returns a PostgreSQL database of this test's own, migrated like SQLite.
func Postgres(t testing.TB, sources ...migrations.Source) *bun.DB {
	t.Helper()
	db, _, err := storage.Open(PostgresURL(t), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	migrate(t, db, sources)
	return db
}

func migrate(t testing.TB, db *bun.DB, sources []migrations.Source) {
	t.Helper()
	ms, err := migrations.Collect(sources...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := storage.Migrate(context.Background(), db, ms); err != nil {
		t.Fatal(err)
	}
}

// Engines runs f once per engine, as subtests named "sqlite" and "postgres".
func Engines(t *testing.T, f func(t *testing.T, db *bun.DB)) {
	t.Helper()
	EnginesWith(t, nil, f)
}

// EnginesWith is Engines on databases migrated with the given modules'
// migrations as well.
func EnginesWith(t *testing.T, sources []migrations.Source, f func(t *testing.T, db *bun.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); f(t, SQLite(t, sources...)) })
	t.Run("postgres", func(t *testing.T) { t.Parallel(); f(t, Postgres(t, sources...)) })
}

func withDatabase(url, name string) string {
	// postgres://user@host:port/dbname?query
	rest, query, _ := strings.Cut(url, "?")
	i := strings.LastIndex(rest, "/")
	if i < len("postgres://") {
		rest += "/"
		i = len(rest) - 1
	}
	out := rest[:i+1] + name
	if query != "" {
		out += "?" + query
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b)
}
