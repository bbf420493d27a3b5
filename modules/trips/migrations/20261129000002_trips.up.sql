CREATE TABLE trips (
    id                   TEXT PRIMARY KEY,
    user_id              TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title                TEXT,
    source_url           TEXT NOT NULL,
    source_type          TEXT,
    start_date           TEXT,
    end_date             TEXT,
    fatigue_factor       DOUBLE PRECISION NOT NULL,
    elevation_penalty    DOUBLE PRECISION NOT NULL,
    max_distance_per_day DOUBLE PRECISION NOT NULL,
    average_speed        DOUBLE PRECISION NOT NULL,
    departure_hour       INTEGER NOT NULL,
    ebike_mode           BOOLEAN NOT NULL,
    accommodation_types  TEXT NOT NULL,
    locale               TEXT NOT NULL,
    status               TEXT NOT NULL,
    computation_status   TEXT NOT NULL,
    version              BIGINT NOT NULL,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE INDEX trips_user_newest ON trips (user_id, created_at DESC, id DESC);
