-- Points of interest imported from OpenStreetMap (and later other sources),
-- read by the accommodation candidates around each stage end. The id names
-- the source element ("osm:node:123"), so a re-import updates in place.
CREATE TABLE pois (
    id           TEXT PRIMARY KEY,
    source       TEXT NOT NULL,
    osm_type     TEXT,
    osm_id       BIGINT,
    name         TEXT NOT NULL,
    category     TEXT NOT NULL,
    lat          DOUBLE PRECISION NOT NULL,
    lon          DOUBLE PRECISION NOT NULL,
    tags         TEXT NOT NULL,
    imported_at  TIMESTAMPTZ NOT NULL
);
--bun:split
-- Bounding-box reads: a range on lat, then lon filtered inside the index.
CREATE INDEX pois_lat_lon ON pois (lat, lon);
