ALTER TABLE trips ADD COLUMN generation BIGINT NOT NULL DEFAULT 1;
--bun:split
-- The imported route, kept durably: re-pacing and stage edits cut it again.
CREATE TABLE trip_routes (
    trip_id       TEXT PRIMARY KEY REFERENCES trips (id) ON DELETE CASCADE,
    title         TEXT,
    source_type   TEXT NOT NULL,
    raw_points    TEXT NOT NULL,
    decimated     TEXT NOT NULL,
    track_starts  TEXT NOT NULL,
    distance      DOUBLE PRECISION NOT NULL,
    ascent        DOUBLE PRECISION NOT NULL,
    descent       DOUBLE PRECISION NOT NULL,
    point_count   INTEGER NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE TABLE stages (
    id           TEXT PRIMARY KEY,
    trip_id      TEXT NOT NULL REFERENCES trips (id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    distance     DOUBLE PRECISION NOT NULL,
    ascent       DOUBLE PRECISION NOT NULL,
    descent      DOUBLE PRECISION NOT NULL,
    start_point  TEXT NOT NULL,
    end_point    TEXT NOT NULL,
    geometry     TEXT NOT NULL,
    label        TEXT,
    is_rest_day  BOOLEAN NOT NULL,
    alerts       TEXT
);
--bun:split
CREATE INDEX stages_trip ON stages (trip_id, position);
--bun:split
-- One row per computation and generation: the durable history behind the
-- status map mirrored on the trip, including superseded work.
CREATE TABLE computations (
    trip_id     TEXT NOT NULL REFERENCES trips (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    generation  BIGINT NOT NULL,
    status      TEXT NOT NULL,
    error       TEXT,
    updated_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (trip_id, name, generation)
);
