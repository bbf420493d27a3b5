package poi_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/route/osmfixture"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/storage/storagetest"
)

// scatteredExtract holds n water points on a 20 × 20 km square and a short
// gravel track at each, in shuffled order: the file's order is not the
// tiles'.
func scatteredExtract(t *testing.T, n int, seed uint64) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := osmfixture.NewXML(&b)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		p := offset(end, rng.Float64()*20, rng.Float64()*20)
		q := offset(p, 0.05, 0.05)
		id := int64(3 * (i + 1))
		require.NoError(t, w.Node(osmfixture.Node{ID: id, Lat: p.Lat, Lon: p.Lon, Tags: []osmfixture.Tag{{"amenity", "drinking_water"}}}))
		require.NoError(t, w.Node(osmfixture.Node{ID: id + 1, Lat: p.Lat, Lon: p.Lon}))
		require.NoError(t, w.Node(osmfixture.Node{ID: id + 2, Lat: q.Lat, Lon: q.Lon}))
	}
	for i := range n {
		id := int64(3 * (i + 1))
		require.NoError(t, w.Way(osmfixture.Way{ID: id, Refs: []int64{id + 1, id + 2},
			Tags: []osmfixture.Tag{{"highway", "track"}, {"surface", "gravel"}}}))
	}
	require.NoError(t, w.Close())
	return b.Bytes()
}

// storedTiles are the tiles of table's rows in the order the engine keeps
// them (SQLite's rowid, PostgreSQL's heap).
func storedTiles(t *testing.T, db *bun.DB, table string) []int64 {
	t.Helper()
	order := "rowid"
	if db.Dialect().Name().String() == "pg" {
		order = "ctid"
	}
	var tiles []int64
	require.NoError(t, db.NewSelect().Table(table).Column("tile").OrderExpr(order).Scan(context.Background(), &tiles))
	return tiles
}

// TestAnImportIsFiledInTileOrder: places and way chunks read in the
// file's shuffled order lie in the store in tile order, so that a corridor
// read finds a tile's rows side by side.
func TestAnImportIsFiledInTileOrder(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		stats, err := poi.Importer{BatchSize: 7}.Import(ctx, poi.NewStore(db), bytes.NewReader(scatteredExtract(t, 300, 1)), poi.FormatXML)
		require.NoError(t, err)
		require.Equal(t, 300, stats.Nodes)
		require.Equal(t, 300, stats.Roads)
		for _, table := range []string{"pois", "osm_ways"} {
			tiles := storedTiles(t, db, table)
			require.Len(t, tiles, 300, table)
			require.True(t, slices.IsSorted(tiles), "%s lies in tile order", table)
			require.Greater(t, len(slices.Compact(slices.Clone(tiles))), 50, "%s spreads over many tiles", table)
		}
		for _, table := range []string{"osm_staged_pois", "osm_staged_ways"} {
			n, err := db.NewSelect().Table(table).Count(ctx)
			require.NoError(t, err)
			require.Zero(t, n, "%s is emptied once filed", table)
		}
	})
}

// failingReader fails once it has given limit bytes, whichever pass
// reads them: past the file's length, an import fails in a later pass,
// after batches of it were written.
type failingReader struct {
	file        *bytes.Reader
	limit, read int
}

func (r *failingReader) Seek(off int64, whence int) (int64, error) { return r.file.Seek(off, whence) }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.read >= r.limit {
		return 0, errBroken
	}
	n, err := r.file.Read(p[:min(len(p), r.limit-r.read)])
	r.read += n
	return n, err
}

var errBroken = errors.New("disk gone")

// TestAFailedImportLeavesTheStoreAsItWas: an import that fails once it has
// read and written batches of places leaves the places of the import
// before it as they were, adds none of its own, and keeps nothing aside.
func TestAFailedImportLeavesTheStoreAsItWas(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{poi.Migrations}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := poi.NewStore(db)
		_, err := poi.Importer{}.Import(ctx, s, bytes.NewReader(scatteredExtract(t, 40, 2)), poi.FormatXML)
		require.NoError(t, err)
		before := storedIDs(t, db)
		require.Len(t, before, 40)

		file := scatteredExtract(t, 400, 3)
		broken := &failingReader{file: bytes.NewReader(file), limit: len(file) * 3 / 2}
		stats, err := poi.Importer{BatchSize: 10}.Import(ctx, s, broken, poi.FormatXML)
		require.ErrorIs(t, err, errBroken)
		require.Greater(t, stats.Batches, 3, "batches were written before the failure")
		require.Equal(t, before, storedIDs(t, db))
		for _, table := range []string{"osm_staged_pois", "osm_staged_ways"} {
			n, err := db.NewSelect().Table(table).Count(ctx)
			require.NoError(t, err)
			require.Zero(t, n, "%s keeps nothing of the failed import", table)
		}
	})
}

func storedIDs(t *testing.T, db *bun.DB) []string {
	t.Helper()
	var ids []string
	require.NoError(t, db.NewSelect().Table("pois").Column("id").Order("id").Scan(context.Background(), &ids))
	return ids
}

var _ io.ReadSeeker = (*failingReader)(nil)
