package poi

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/storage"
)

// Filer is a store an import writes aside as it reads (StagePlaces,
// StageWays) and files in one go when it ends (Cover), or drops
// (DropStaged) when it fails; *Store is one. Filed at the end, an
// import's rows lie in tile order, the order corridor reads take them in,
// whatever the file's order; and what a failed import read never reaches
// the store.
type Filer interface {
	Coverer
	// StagePlaces keeps places of the import their ImportID names aside.
	StagePlaces(ctx context.Context, pois []POI) error
	// StageWays keeps way chunks of the import their ImportID names aside.
	StageWays(ctx context.Context, chunks []WayChunk) error
	// DropStaged forgets what the import importID kept aside.
	DropStaged(ctx context.Context, importID string) error
}

var _ Filer = (*Store)(nil)

type stagedPOI struct {
	bun.BaseModel `bun:"table:osm_staged_pois"`
	placeFields
	ImportID string `bun:"import_id,pk"`
}

type stagedWay struct {
	bun.BaseModel `bun:"table:osm_staged_ways"`
	wayFields
	ImportID string `bun:"import_id,pk"`
}

// The columns each table of rows is filed with, staged and stored alike.
var (
	placeColumns = []string{"id", "source", "osm_type", "osm_id", "name", "category", "lat", "lon", "tags", "imported_at", "tile", "import_id"}
	wayColumns   = []string{"id", "way_id", "kind", "tile", "tags", "points", "import_id"}
)

// StagePlaces keeps pois aside for the import their ImportID names (every
// one must have one); see Filer.
func (s *Store) StagePlaces(ctx context.Context, pois []POI) error {
	rows := dedupeByID(pois)
	staged := make([]stagedPOI, len(rows))
	for i, r := range rows {
		staged[i] = stagedPOI{placeFields: r.placeFields, ImportID: *r.ImportID}
	}
	return insertChunks(ctx, s.db, staged, "import_id, id", placeColumns[1:len(placeColumns)-1])
}

// StageWays keeps chunks aside for the import their ImportID names; see
// Filer.
func (s *Store) StageWays(ctx context.Context, chunks []WayChunk) error {
	rows := wayRows(chunks)
	staged := make([]stagedWay, len(rows))
	for i, r := range rows {
		staged[i] = stagedWay{wayFields: r.wayFields, ImportID: r.ImportID}
	}
	return insertChunks(ctx, s.db, staged, "import_id, id", wayColumns[1:len(wayColumns)-1])
}

// DropStaged forgets what import importID kept aside.
func (s *Store) DropStaged(ctx context.Context, importID string) error {
	return storage.Tx{DB: s.db}.InTx(ctx, func(ctx context.Context) error {
		db := storage.Conn(ctx, s.db)
		for _, table := range []string{"osm_staged_pois", "osm_staged_ways"} {
			if _, err := db.NewDelete().Table(table).Where("import_id = ?", importID).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// fileStaged moves what import importID kept aside into the store, in tile
// order, within the transaction of ctx: a known id is overwritten, as
// Upsert does.
func fileStaged(ctx context.Context, db bun.IDB, importID string) error {
	for _, t := range []struct {
		from, to, order string
		columns         []string
	}{
		{"osm_staged_pois", "pois", "tile, category, id", placeColumns},
		{"osm_staged_ways", "osm_ways", "tile, kind, id", wayColumns},
	} {
		// SQLite reads an ON after a bare SELECT as a join's: the WHERE
		// ends the SELECT.
		q := db.NewRaw("INSERT INTO ? (?) SELECT ? FROM ? WHERE import_id = ? ORDER BY ? ON CONFLICT (id) DO UPDATE SET ?",
			bun.Ident(t.to), columnList(t.columns), columnList(t.columns), bun.Ident(t.from), importID,
			bun.Safe(t.order), bun.Safe(excludedList(t.columns[1:])))
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
		if _, err := db.NewDelete().Table(t.from).Where("import_id = ?", importID).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

func columnList(cols []string) bun.Safe { return bun.Safe(strings.Join(cols, ", ")) }

// excludedList is "c = EXCLUDED.c" for each column: an upsert's update
// takes every column from the row it was given.
func excludedList(cols []string) string {
	set := make([]string, len(cols))
	for i, c := range cols {
		set[i] = c + " = EXCLUDED." + c
	}
	return strings.Join(set, ", ")
}

// insertChunks inserts rows (a slice of one table's models) in statements
// of upsertChunk rows, in one transaction (the one of ctx, or a new one):
// a row whose conflict key is known overwrites update.
func insertChunks[T any](ctx context.Context, db *bun.DB, rows []T, conflict string, update []string) error {
	if len(rows) == 0 {
		return nil
	}
	return storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
		for start := 0; start < len(rows); start += upsertChunk {
			chunk := rows[start:min(start+upsertChunk, len(rows))]
			q := storage.Conn(ctx, db).NewInsert().Model(&chunk).On("CONFLICT (" + conflict + ") DO UPDATE").Set(excludedList(update))
			if _, err := q.Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}
