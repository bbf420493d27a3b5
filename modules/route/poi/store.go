package poi

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/route/corridor"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/storage"
)

// ErrNotFound is returned by Get for an unknown id.
var ErrNotFound = errors.New("poi: not found")

// Store keeps points of interest in table pois. Every method joins the
// transaction carried by ctx. *Store is the default Provider.
type Store struct {
	db *bun.DB
}

var _ Provider = (*Store)(nil)

// NewStore returns a store over db.
func NewStore(db *bun.DB) *Store { return &Store{db: db} }

type poiRow struct {
	bun.BaseModel `bun:"table:pois"`
	placeFields
	ImportID *string `bun:"import_id"`
}

// placeFields are a place's columns, stored (pois) and staged
// (osm_staged_pois) alike.
type placeFields struct {
	ID         string    `bun:"id,pk"`
	Source     string    `bun:"source"`
	OSMType    string    `bun:"osm_type,nullzero"`
	OSMID      int64     `bun:"osm_id,nullzero"`
	Name       string    `bun:"name"`
	Category   string    `bun:"category"`
	Lat        float64   `bun:"lat"`
	Lon        float64   `bun:"lon"`
	Tags       Tags      `bun:"tags,type:text"`
	ImportedAt time.Time `bun:"imported_at"`
	Tile       int64     `bun:"tile"`
}

func toRow(p POI) poiRow {
	tags := p.Tags
	if tags == nil {
		tags = Tags{}
	}
	at := p.ImportedAt
	if at.IsZero() {
		at = time.Now()
	}
	r := poiRow{placeFields: placeFields{ID: p.ID, Source: p.Source, OSMType: p.OSMType, OSMID: p.OSMID, Name: p.Name,
		Category: p.Category, Lat: p.Lat, Lon: p.Lon, Tags: tags, ImportedAt: at.UTC(), Tile: corridor.Tile(p.Lat, p.Lon)}}
	if p.ImportID != "" {
		id := p.ImportID
		r.ImportID = &id
	}
	return r
}

func (r poiRow) poi() POI {
	return POI{ID: r.ID, Source: r.Source, OSMType: r.OSMType, OSMID: r.OSMID, Name: r.Name,
		Category: r.Category, Lat: r.Lat, Lon: r.Lon, Tags: r.Tags, ImportedAt: r.ImportedAt}
}

// upsertChunk bounds one INSERT statement: 12 columns × 500 rows stays far
// below the bind-parameter limits of both engines.
const upsertChunk = 500

// Upsert writes pois in one transaction (the one carried by ctx, or a new
// one): a new id is inserted, a known id is overwritten. A zero ImportedAt
// becomes now. When pois repeats an id, the last one wins.
func (s *Store) Upsert(ctx context.Context, pois []POI) error {
	if len(pois) == 0 {
		return nil
	}
	return insertChunks(ctx, s.db, dedupeByID(pois), "id", placeColumns[1:])
}

// dedupeByID converts pois to rows, keeping the last of each id in the
// position of its first: PostgreSQL refuses an upsert touching a row twice.
func dedupeByID(pois []POI) []poiRow {
	at := make(map[string]int, len(pois))
	rows := make([]poiRow, 0, len(pois))
	for _, p := range pois {
		if i, ok := at[p.ID]; ok {
			rows[i] = toRow(p)
			continue
		}
		at[p.ID] = len(rows)
		rows = append(rows, toRow(p))
	}
	return rows
}

// Get loads the POI with id, or ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (POI, error) {
	var r poiRow
	err := storage.Conn(ctx, s.db).NewSelect().Model(&r).Where("id = ?", id).Scan(ctx)
	if storage.NoRows(err) {
		return POI{}, ErrNotFound
	}
	if err != nil {
		return POI{}, err
	}
	return r.poi(), nil
}

// Box is a latitude/longitude rectangle in degrees. MinLon > MaxLon means
// the box crosses the antimeridian.
type Box struct {
	MinLat, MinLon, MaxLat, MaxLon float64
}

// BoxAround is a Box holding every point within radiusKm of p (poles and the
// antimeridian included): the smallest one on the sphere, widened by 1 % so
// that ellipsoidal distances, up to 0.5 % longer or shorter, stay inside.
func BoxAround(p geo.Point, radiusKm float64) Box {
	dLat := radiusKm * 1.01 * 1000 / geo.EarthRadius * 180 / math.Pi
	b := Box{MinLat: p.Lat - dLat, MaxLat: p.Lat + dLat}
	if b.MinLat <= -90 || b.MaxLat >= 90 {
		// A pole lies within the radius: every longitude does.
		return Box{MinLat: max(b.MinLat, -90), MaxLat: min(b.MaxLat, 90), MinLon: -180, MaxLon: 180}
	}
	// The widest longitude span is reached off the central meridian, at
	// sin Δλ = sin r / cos φ.
	sinSpan := math.Sin(dLat*math.Pi/180) / math.Cos(p.Lat*math.Pi/180)
	if sinSpan >= 1 {
		return Box{MinLat: b.MinLat, MaxLat: b.MaxLat, MinLon: -180, MaxLon: 180}
	}
	dLon := math.Asin(sinSpan) * 180 / math.Pi
	b.MinLon, b.MaxLon = wrapLon(p.Lon-dLon), wrapLon(p.Lon+dLon)
	return b
}

func wrapLon(lon float64) float64 {
	switch {
	case lon < -180:
		return lon + 360
	case lon > 180:
		return lon - 360
	}
	return lon
}

// InBox returns the POIs inside b whose category is one of categories (any
// category when categories is empty), in id order.
func (s *Store) InBox(ctx context.Context, b Box, categories []string) ([]POI, error) {
	var rows []poiRow
	if err := s.InBoxQuery(ctx, b, categories).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make([]POI, len(rows))
	for i, r := range rows {
		out[i] = r.poi()
	}
	return out, nil
}

// InBoxQuery is the statement InBox runs (the plan tests read it).
func (s *Store) InBoxQuery(ctx context.Context, b Box, categories []string) *bun.SelectQuery {
	q := storage.Conn(ctx, s.db).NewSelect().Model((*poiRow)(nil)).
		Where("lat >= ?", b.MinLat).Where("lat <= ?", b.MaxLat)
	if b.MinLon <= b.MaxLon {
		q = q.Where("lon >= ?", b.MinLon).Where("lon <= ?", b.MaxLon)
	} else {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("lon >= ?", b.MinLon).WhereOr("lon <= ?", b.MaxLon)
		})
	}
	if len(categories) > 0 {
		q = q.Where("category IN (?)", bun.List(categories))
	}
	return q.Order("id")
}

// HoldsAny reports whether the store holds at least one POI of one of
// categories: an empty store answers every query with nothing, which a
// caller must tell apart from "nothing near here".
func (s *Store) HoldsAny(ctx context.Context, categories []string) (bool, error) {
	return storage.Conn(ctx, s.db).NewSelect().Model((*poiRow)(nil)).
		Where("category IN (?)", bun.List(categories)).Limit(1).Exists(ctx)
}

// Candidates returns the accommodations stored near a stage end; see
// Provider.
func (s *Store) Candidates(ctx context.Context, near geo.Point, radiusKm float64, types []string, date *time.Time) ([]Accommodation, error) {
	q, err := newQuery(near, radiusKm, types, date)
	if err != nil {
		return nil, err
	}
	pois, err := s.inTilesAround(ctx, near, q.radiusKm, q.types)
	if err != nil {
		return nil, err
	}
	return q.choose(pois), nil
}

// inTilesAround is InBox(BoxAround(near, radiusKm), categories) read
// through the tile index: the tiles of the circle, by category, so that
// only the rows of those categories are fetched (the box's lat, lon index
// fetches every place of the box to drop most of them). Places imported
// before tiles were kept (tile -1) are read too, until their extract is
// imported again.
func (s *Store) inTilesAround(ctx context.Context, near geo.Point, radiusKm float64, categories []string) ([]POI, error) {
	box := BoxAround(near, radiusKm)
	// widened by 1 % as the box is: ellipsoidal distances differ by less
	tiles := append([]int64{-1}, corridor.Tiles([]geo.Point{near}, radiusKm*1000*1.01)...)
	var out []POI
	err := inTiles(tiles, func(chunk []int64) error {
		var rows []poiRow
		if err := s.AroundQuery(ctx, chunk, categories).Scan(ctx, &rows); err != nil {
			return err
		}
		for _, r := range rows {
			if box.holds(r.Lat, r.Lon) {
				out = append(out, r.poi())
			}
		}
		return nil
	})
	slices.SortFunc(out, func(a, b POI) int { return strings.Compare(a.ID, b.ID) })
	return out, err
}

// holds reports whether (lat, lon) lies in b, as InBox reads it.
func (b Box) holds(lat, lon float64) bool {
	if lat < b.MinLat || lat > b.MaxLat {
		return false
	}
	if b.MinLon <= b.MaxLon {
		return lon >= b.MinLon && lon <= b.MaxLon
	}
	return lon >= b.MinLon || lon <= b.MaxLon
}
