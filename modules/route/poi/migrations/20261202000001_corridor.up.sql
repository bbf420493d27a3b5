-- The local geographic store grows to every place the alert rules read,
-- the ways ridden (roads with their surface and traffic tags, ferry
-- routes), and the area each import covers. Corridor reads go through a
-- grid: each row carries the key of its 0.01° tile (a plain B-tree, the
-- same on both engines, no spatial extension). Rows imported before have
-- no tile (-1): importing their extract again files them.
ALTER TABLE pois ADD COLUMN tile BIGINT NOT NULL DEFAULT -1;
--bun:split
ALTER TABLE pois ADD COLUMN import_id TEXT;
--bun:split
CREATE INDEX pois_tile ON pois (tile, category);
--bun:split
-- A way is kept in chunks, each filed under the tile it starts in and
-- staying within the tiles around it: points are "lat,lon" pairs in
-- millionths of a degree, each after the first as the difference from
-- the one before.
CREATE TABLE osm_ways (
    id         TEXT PRIMARY KEY,
    way_id     BIGINT NOT NULL,
    kind       TEXT NOT NULL,
    tile       BIGINT NOT NULL,
    tags       TEXT NOT NULL,
    points     TEXT NOT NULL,
    import_id  TEXT NOT NULL
);
--bun:split
CREATE INDEX osm_ways_tile ON osm_ways (tile, kind);
--bun:split
-- The 0.1° tiles an import holds data in: a line is covered where its
-- tiles are. The last import of a tile owns it.
CREATE TABLE osm_coverage (
    tile         BIGINT PRIMARY KEY,
    import_id    TEXT NOT NULL,
    imported_at  TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE TABLE osm_imports (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    min_lat      DOUBLE PRECISION NOT NULL,
    min_lon      DOUBLE PRECISION NOT NULL,
    max_lat      DOUBLE PRECISION NOT NULL,
    max_lon      DOUBLE PRECISION NOT NULL,
    places       BIGINT NOT NULL,
    way_chunks   BIGINT NOT NULL,
    tiles        BIGINT NOT NULL,
    imported_at  TIMESTAMPTZ NOT NULL
);
