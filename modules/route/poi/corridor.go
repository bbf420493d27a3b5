package poi

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/route/corridor"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/storage"
)

// WayChunk is a run of a mapped way (corridor.Chunk), as the store keeps
// it: a road with the tags RoadTags names, or a ferry route.
type WayChunk struct {
	ID       string // "osm:way:123:0": the way and the chunk's rank in it
	WayID    int64
	Kind     string // KindRoad or KindFerry
	Tile     int64  // the tile the chunk starts in
	Tags     Tags
	Points   []geo.Point
	ImportID string
}

type wayRow struct {
	bun.BaseModel `bun:"table:osm_ways"`
	wayFields
	ImportID string `bun:"import_id"`
}

// wayFields are a way chunk's columns, stored (osm_ways) and staged
// (osm_staged_ways) alike.
type wayFields struct {
	ID     string `bun:"id,pk"`
	WayID  int64  `bun:"way_id"`
	Kind   string `bun:"kind"`
	Tile   int64  `bun:"tile"`
	Tags   Tags   `bun:"tags,type:text"`
	Points string `bun:"points"`
}

// encodePoints writes points as millionths of a degree, each pair after
// the first as the difference from the one before: about 8 bytes a point.
func encodePoints(ps []geo.Point) string {
	b := make([]byte, 0, len(ps)*10)
	var plat, plon int64
	for i, p := range ps {
		lat, lon := e6(p.Lat), e6(p.Lon)
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, lat-plat, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, lon-plon, 10)
		plat, plon = lat, lon
	}
	return string(b)
}

func decodePoints(s string) ([]geo.Point, error) {
	if s == "" {
		return nil, nil
	}
	out := make([]geo.Point, 0, strings.Count(s, ",")/2+1)
	var lat, lon int64
	for len(s) > 0 {
		var a, b string
		var ok bool
		if a, s, ok = strings.Cut(s, ","); !ok {
			return nil, fmt.Errorf("poi: odd number of way coordinates")
		}
		b, s, _ = strings.Cut(s, ",")
		da, err1 := strconv.ParseInt(a, 10, 64)
		db, err2 := strconv.ParseInt(b, 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("poi: malformed way coordinates")
		}
		lat, lon = lat+da, lon+db
		out = append(out, geo.Point{Lat: float64(lat) / 1e6, Lon: float64(lon) / 1e6})
	}
	return out, nil
}

func e6(deg float64) int64 {
	if deg < 0 {
		return int64(deg*1e6 - 0.5)
	}
	return int64(deg*1e6 + 0.5)
}

// UpsertWays writes way chunks in one transaction, as Upsert writes places.
func (s *Store) UpsertWays(ctx context.Context, chunks []WayChunk) error {
	if len(chunks) == 0 {
		return nil
	}
	return insertChunks(ctx, s.db, wayRows(chunks), "id", wayColumns[1:])
}

// wayRows converts chunks to rows, keeping the last of each id in the
// position of its first, as dedupeByID does for places.
func wayRows(chunks []WayChunk) []wayRow {
	at := make(map[string]int, len(chunks))
	rows := make([]wayRow, 0, len(chunks))
	for _, c := range chunks {
		tags := c.Tags
		if tags == nil {
			tags = Tags{}
		}
		r := wayRow{wayFields: wayFields{ID: c.ID, WayID: c.WayID, Kind: c.Kind, Tile: c.Tile, Tags: tags, Points: encodePoints(c.Points)}, ImportID: c.ImportID}
		if i, ok := at[c.ID]; ok {
			rows[i] = r
			continue
		}
		at[c.ID] = len(rows)
		rows = append(rows, r)
	}
	return rows
}

// Area is what one import covered.
type Area struct {
	ImportID                       string
	Name                           string // the file's name
	MinLat, MinLon, MaxLat, MaxLon float64
	Tiles                          []int64 // the coverage tiles holding data (corridor.Coarse)
	Places, WayChunks              int
}

// Cover records an import's area: what it kept aside (Filer) is filed in
// the store in tile order, its coverage tiles become its own (a
// tile imported again belongs to the last import), then every place and
// way chunk of another import filed in those tiles is removed, so that
// importing an area again replaces its data: what the new extract no
// longer holds goes, nothing is listed twice. Places entered by hand stay.
// It is one transaction: readers see the area's old data or its new data.
func (s *Store) Cover(ctx context.Context, a Area) error {
	now := time.Now().UTC()
	type coverRow struct {
		bun.BaseModel `bun:"table:osm_coverage"`
		Tile          int64     `bun:"tile,pk"`
		ImportID      string    `bun:"import_id"`
		ImportedAt    time.Time `bun:"imported_at"`
	}
	type importRow struct {
		bun.BaseModel                  `bun:"table:osm_imports"`
		ID                             string    `bun:"id,pk"`
		Name                           string    `bun:"name"`
		MinLat, MinLon, MaxLat, MaxLon float64   `bun:",nullzero:false"`
		Places                         int64     `bun:"places"`
		WayChunks                      int64     `bun:"way_chunks"`
		Tiles                          int64     `bun:"tiles"`
		ImportedAt                     time.Time `bun:"imported_at"`
	}
	return storage.Tx{DB: s.db}.InTx(ctx, func(ctx context.Context) error {
		db := storage.Conn(ctx, s.db)
		if err := fileStaged(ctx, db, a.ImportID); err != nil {
			return err
		}
		rows := make([]coverRow, len(a.Tiles))
		for i, t := range a.Tiles {
			rows[i] = coverRow{Tile: t, ImportID: a.ImportID, ImportedAt: now}
		}
		for start := 0; start < len(rows); start += upsertChunk {
			chunk := rows[start:min(start+upsertChunk, len(rows))]
			if _, err := db.NewInsert().Model(&chunk).On("CONFLICT (tile) DO UPDATE").
				Set("import_id = EXCLUDED.import_id").Set("imported_at = EXCLUDED.imported_at").Exec(ctx); err != nil {
				return err
			}
		}
		owned := db.NewSelect().Table("osm_coverage").Column("tile").Where("import_id = ?", a.ImportID)
		coarse := bun.Safe("((tile / 36000) / 10) * 3600 + (tile % 36000) / 10")
		if _, err := db.NewDelete().Table("pois").Where("source = ?", SourceOSM).
			Where("(import_id IS NULL OR import_id <> ?)", a.ImportID).Where("tile >= 0").
			Where("? IN (?)", coarse, owned).Exec(ctx); err != nil {
			return err
		}
		if _, err := db.NewDelete().Table("osm_ways").Where("import_id <> ?", a.ImportID).
			Where("? IN (?)", coarse, owned).Exec(ctx); err != nil {
			return err
		}
		_, err := db.NewInsert().Model(&importRow{ID: a.ImportID, Name: a.Name, MinLat: a.MinLat, MinLon: a.MinLon,
			MaxLat: a.MaxLat, MaxLon: a.MaxLon, Places: int64(a.Places), WayChunks: int64(a.WayChunks),
			Tiles: int64(len(a.Tiles)), ImportedAt: now}).Exec(ctx)
		return err
	})
}

// inChunk bounds the keys of one IN list: both engines take far more, but
// a statement stays short enough to plan quickly.
const inChunk = 400

// inTiles runs q once per chunk of tiles, q adding the tile condition with
// the chunk it is given.
func inTiles(tiles []int64, q func(chunk []int64) error) error {
	for start := 0; start < len(tiles); start += inChunk {
		if err := q(tiles[start:min(start+inChunk, len(tiles))]); err != nil {
			return err
		}
	}
	return nil
}

// Found is a place found along a line: how far off the line it lies, and
// where along it (metres from its start) it is nearest. Its POI holds what
// the rules read (foundColumns): no source, import or date.
type Found struct {
	POI
	Off, Along float64
}

// Along returns the places of categories within halfWidth metres of line,
// in order along it (nearest first for equal places along), read through
// the tile index.
func (s *Store) Along(ctx context.Context, line *corridor.Line, halfWidth float64, categories []string) ([]Found, error) {
	var out []Found
	err := inTiles(corridor.Tiles(line.Points(), halfWidth), func(chunk []int64) error {
		var rows []poiRow
		if err := s.AroundQuery(ctx, chunk, categories).Column(foundColumns...).Scan(ctx, &rows); err != nil {
			return err
		}
		for _, r := range rows {
			p := r.poi()
			if off, along, ok := line.Locate(geo.Point{Lat: p.Lat, Lon: p.Lon}, halfWidth); ok {
				out = append(out, Found{POI: p, Off: off, Along: along})
			}
		}
		return nil
	})
	slices.SortFunc(out, func(a, b Found) int {
		switch {
		case a.Along != b.Along:
			return cmpFloat(a.Along, b.Along)
		case a.Off != b.Off:
			return cmpFloat(a.Off, b.Off)
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, err
}

// foundColumns are the columns a Found is read from: a corridor reads
// thousands of places, and every column read costs on each.
var foundColumns = []string{"id", "osm_type", "osm_id", "name", "category", "lat", "lon", "tags"}

// AroundQuery is the statement Along runs for one chunk of tiles (the plan
// tests read it).
func (s *Store) AroundQuery(ctx context.Context, tiles []int64, categories []string) *bun.SelectQuery {
	q := storage.Conn(ctx, s.db).NewSelect().Model((*poiRow)(nil)).Where("tile IN (?)", bun.List(tiles))
	if len(categories) > 0 {
		q = q.Where("category IN (?)", bun.List(categories))
	}
	return q
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	return 1
}

// WaysNear returns the chunks of ways of kind filed within halfWidth
// metres of line's tiles (and the tiles around them, where a chunk filed
// next door may reach): the candidates a caller then measures.
func (s *Store) WaysNear(ctx context.Context, line []geo.Point, halfWidth float64, kind string) ([]WayChunk, error) {
	var out []WayChunk
	err := inTiles(corridor.Neighbours(corridor.Tiles(line, halfWidth)), func(chunk []int64) error {
		var rows []wayRow
		if err := s.WaysQuery(ctx, chunk, kind).Scan(ctx, &rows); err != nil {
			return err
		}
		for _, r := range rows {
			pts, err := decodePoints(r.Points)
			if err != nil {
				return err
			}
			out = append(out, WayChunk{ID: r.ID, WayID: r.WayID, Kind: r.Kind, Tile: r.Tile, Tags: r.Tags, Points: pts, ImportID: r.ImportID})
		}
		return nil
	})
	slices.SortFunc(out, func(a, b WayChunk) int { return strings.Compare(a.ID, b.ID) })
	return out, err
}

// WaysQuery is the statement WaysNear runs for one chunk of tiles (the
// plan tests read it).
func (s *Store) WaysQuery(ctx context.Context, tiles []int64, kind string) *bun.SelectQuery {
	return storage.Conn(ctx, s.db).NewSelect().Model((*wayRow)(nil)).Where("tile IN (?)", bun.List(tiles)).Where("kind = ?", kind)
}

// Coverage says how far the local data reaches for a line: Imported is
// false when nothing was ever imported (the store cannot answer anywhere),
// Covered when every coverage tile the line passes through holds data.
type Coverage struct {
	Imported bool
	Covered  bool
}

// Covers tells whether the imported data covers line.
func (s *Store) Covers(ctx context.Context, line []geo.Point) (Coverage, error) {
	db := storage.Conn(ctx, s.db)
	any, err := db.NewSelect().Table("osm_coverage").Limit(1).Exists(ctx)
	if err != nil || !any {
		return Coverage{}, err
	}
	tiles := corridor.CoarseTiles(line)
	found := 0
	err = inTiles(tiles, func(chunk []int64) error {
		n, err := db.NewSelect().Table("osm_coverage").Where("tile IN (?)", bun.List(chunk)).Count(ctx)
		found += int(n)
		return err
	})
	return Coverage{Imported: true, Covered: err == nil && found == len(tiles)}, err
}

// nearestFirstRing is the radius (metres) of the first ring Nearest reads.
const nearestFirstRing = 1000.0

// Nearest returns, among the places of categories within radius metres of
// p that accept takes (any, when accept is nil), the one nearest p on the
// sphere, ties going to the one nearer in the plane, then to the smaller
// id; ok is false when there is none. It reads the tiles ring by ring from
// p outwards, doubling the ring's radius, and stops at the first ring
// whose nearest place is nearer than the ring's edge: the places of the
// rings not read lie beyond that edge. A rule asking for the nearest of a
// region's places reads a few tiles, not the thousands of a wide circle.
func (s *Store) Nearest(ctx context.Context, p geo.Point, radius float64, categories []string, accept func(POI) bool) (Found, bool, error) {
	line := corridor.NewLine([]geo.Point{p}, radius)
	var best Found
	bestD, found := math.Inf(1), false
	read := map[int64]bool{}
	for ring := min(nearestFirstRing, radius); ; ring = min(2*ring, radius) {
		var fresh []int64
		for _, t := range corridor.Tiles([]geo.Point{p}, ring) {
			if !read[t] {
				read[t] = true
				fresh = append(fresh, t)
			}
		}
		err := inTiles(fresh, func(chunk []int64) error {
			var rows []poiRow
			if err := s.AroundQuery(ctx, chunk, categories).Column(foundColumns...).Scan(ctx, &rows); err != nil {
				return err
			}
			for _, r := range rows {
				c := r.poi()
				off, _, ok := line.Locate(geo.Point{Lat: c.Lat, Lon: c.Lon}, radius)
				if !ok || (accept != nil && !accept(c)) {
					continue
				}
				d := geo.Haversine(p, geo.Point{Lat: c.Lat, Lon: c.Lon})
				if !found || d < bestD || (d == bestD && (off < best.Off || (off == best.Off && c.ID < best.ID))) {
					best, bestD, found = Found{POI: c, Off: off}, d, true
				}
			}
			return nil
		})
		if err != nil {
			return Found{}, false, err
		}
		// The sphere and the tangent plane differ by far less than 1 %
		// over a ring: a place nearer than 99 % of the edge is the nearest.
		if ring >= radius || (found && bestD < 0.99*ring) {
			return best, found, nil
		}
	}
}
