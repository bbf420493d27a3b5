// Package migrations holds the schema as numbered up/down SQL files, embedded
// in the binary. The same files run on PostgreSQL and SQLite: they use only
// types and statements both engines accept.
package migrations

import (
	"embed"

	"github.com/uptrace/bun/migrate"
)

//go:embed *.sql
var files embed.FS

// All returns the migrations, discovered from the embedded files.
func All() (*migrate.Migrations, error) {
	m := migrate.NewMigrations()
	if err := m.Discover(files); err != nil {
		return nil, err
	}
	return m, nil
}
