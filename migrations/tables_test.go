package migrations_test

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/migrations"
)

// The tables a module's migrations leave are followed through them in
// order: a table rebuilt under a new name and renamed back is listed once,
// under its name, and a dropped one not at all.
func TestTablesFollowTheMigrations(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"20260101000001_first.up.sql":   {Data: []byte("CREATE TABLE days (id TEXT);\n--bun:split\nCREATE TABLE IF NOT EXISTS notes (id TEXT);\nCREATE TABLE scratch (id TEXT);")},
		"20260101000001_first.down.sql": {Data: []byte("CREATE TABLE ignored (id TEXT);")},
		"20260101000002_rebuild.up.sql": {Data: []byte("CREATE TABLE days_ordered (id TEXT);\nDROP TABLE days;\nALTER TABLE days_ordered RENAME TO days;\nDROP TABLE IF EXISTS scratch;\nALTER TABLE notes ADD COLUMN body TEXT;")},
	}
	got, err := migrations.Source{Module: "test", FS: fsys}.Tables()
	require.NoError(t, err)
	require.Equal(t, []string{"days", "notes"}, got)
}
