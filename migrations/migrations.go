// Package migrations holds the framework's own tables (what the guards
// remember: idempotency keys, confirmation tokens) and the migrator that
// orders the migrations every module contributes into one history.
//
// A module embeds its numbered up/down SQL files and contributes them as a
// Source. The files are named <timestamp>_<name>.up.sql and .down.sql; the
// timestamp orders the whole history, across modules. The same files run on
// PostgreSQL and SQLite: they use only types and statements both engines
// accept.
package migrations

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"

	"github.com/uptrace/bun/migrate"
)

//go:embed *.sql
var files embed.FS

// Source is one module's migrations: the *.up.sql and *.down.sql files of
// FS (subfolders included).
type Source struct {
	Module string // who contributes them, named in clashes
	FS     fs.FS
}

// Framework is the framework's own migrations.
func Framework() Source { return Source{Module: "framework", FS: files} }

// Dir is the Source of the folder dir of an embedded file system, as a
// module declares it:
//
//	//go:embed migrations/*.sql
//	var files embed.FS
//	var Migrations = migrations.Dir("notes", files, "migrations")
func Dir(module string, fsys fs.FS, dir string) Source {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(fmt.Sprintf("migrations of %s: %v", module, err)) // a constant path: a programming error
	}
	return Source{Module: module, FS: sub}
}

// Collect orders the framework's migrations and every source into one
// history. Two sources using one timestamp are refused, naming both.
func Collect(sources ...Source) (*migrate.Migrations, error) {
	all := append([]Source{Framework()}, sources...)
	owner := map[string]string{}
	var problems []string
	m := migrate.NewMigrations()
	for _, s := range all {
		names, err := ids(s.FS)
		if err != nil {
			return nil, fmt.Errorf("migrations of %s: %w", s.Module, err)
		}
		for _, id := range names {
			if other, ok := owner[id]; ok && other != s.Module {
				problems = append(problems, fmt.Sprintf("migration %s is contributed by both %s and %s", id, other, s.Module))
			}
			owner[id] = s.Module
		}
		if err := m.Discover(s.FS); err != nil {
			return nil, fmt.Errorf("migrations of %s: %w", s.Module, err)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("migrations: %s; give each file a timestamp of its own", strings.Join(problems, "; "))
	}
	return m, nil
}

// ids lists the timestamps of the up migrations in fsys.
func ids(fsys fs.FS) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".up.sql") {
			return err
		}
		base := path[strings.LastIndex(path, "/")+1:]
		id, _, ok := strings.Cut(base, "_")
		if !ok {
			return fmt.Errorf("%s: a migration is named <timestamp>_<name>.up.sql", path)
		}
		out = append(out, id)
		return nil
	})
	return out, err
}

// tableChange finds what a migration does to its tables, in order: creates
// one (1), renames one (2 to 3), drops one (4).
var tableChange = regexp.MustCompile(`(?i)\bcreate\s+(?:virtual\s+)?table\s+(?:if\s+not\s+exists\s+)?"?([a-z_][a-z0-9_]*)"?` +
	`|\balter\s+table\s+"?([a-z_][a-z0-9_]*)"?\s+rename\s+to\s+"?([a-z_][a-z0-9_]*)"?` +
	`|\bdrop\s+table\s+(?:if\s+exists\s+)?"?([a-z_][a-z0-9_]*)"?`)

// Tables lists the tables the source's up migrations leave, sorted: the
// module's own tables, whose rows the conformance kit counts. A table
// created, renamed or dropped is followed through the migrations in order.
func (s Source) Tables() ([]string, error) {
	var names []string
	err := fs.WalkDir(s.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".up.sql") {
			names = append(names, path)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names) // by timestamp, the order they run in
	tables := map[string]bool{}
	for _, n := range names {
		raw, err := fs.ReadFile(s.FS, n)
		if err != nil {
			return nil, fmt.Errorf("migrations of %s: %w", s.Module, err)
		}
		for _, m := range tableChange.FindAllStringSubmatch(string(raw), -1) {
			switch {
			case m[1] != "":
				tables[strings.ToLower(m[1])] = true
			case m[2] != "":
				delete(tables, strings.ToLower(m[2]))
				tables[strings.ToLower(m[3])] = true
			default:
				delete(tables, strings.ToLower(m[4]))
			}
		}
	}
	out := make([]string, 0, len(tables))
	for t := range tables {
		out = append(out, t)
	}
	sort.Strings(out)
	return out, nil
}
