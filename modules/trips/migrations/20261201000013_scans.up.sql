-- A widened accommodation scan asked for a trip's current generation: the
-- radius, and the one day it concerns (all days when null). The
-- accommodations computation of that generation reads it and appends what
-- it finds; a new generation (the days recut or edited) leaves it behind.
CREATE TABLE trip_scans (
    trip_id      TEXT PRIMARY KEY REFERENCES trips (id) ON DELETE CASCADE,
    generation   BIGINT NOT NULL,
    radius_km    DOUBLE PRECISION NOT NULL,
    stage_index  INTEGER,
    created_at   TIMESTAMPTZ NOT NULL
);
