-- An import writes its rows here as it reads them, then files them in
-- pois and osm_ways in tile order when it ends (Store.Cover): a corridor
-- read then finds a tile's rows on a few neighbouring pages, where rows in
-- the file's order cost a page each. What a failed import read stays out
-- of the store.
CREATE TABLE osm_staged_pois (
    import_id    TEXT NOT NULL,
    id           TEXT NOT NULL,
    source       TEXT NOT NULL,
    osm_type     TEXT,
    osm_id       BIGINT,
    name         TEXT NOT NULL,
    category     TEXT NOT NULL,
    lat          DOUBLE PRECISION NOT NULL,
    lon          DOUBLE PRECISION NOT NULL,
    tags         TEXT NOT NULL,
    imported_at  TIMESTAMPTZ NOT NULL,
    tile         BIGINT NOT NULL,
    PRIMARY KEY (import_id, id)
);
--bun:split
CREATE TABLE osm_staged_ways (
    import_id  TEXT NOT NULL,
    id         TEXT NOT NULL,
    way_id     BIGINT NOT NULL,
    kind       TEXT NOT NULL,
    tile       BIGINT NOT NULL,
    tags       TEXT NOT NULL,
    points     TEXT NOT NULL,
    PRIMARY KEY (import_id, id)
);
