ALTER TABLE stages ADD COLUMN accommodations TEXT;
--bun:split
ALTER TABLE stages ADD COLUMN selected_accommodation TEXT;
--bun:split
CREATE TABLE trip_shares (
    id          TEXT PRIMARY KEY,
    trip_id     TEXT NOT NULL REFERENCES trips (id) ON DELETE CASCADE,
    token       TEXT NOT NULL UNIQUE,
    short_code  TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL,
    deleted_at  TIMESTAMPTZ
);
--bun:split
-- At most one active share per trip: the index, not a pre-check, decides.
CREATE UNIQUE INDEX trip_shares_active ON trip_shares (trip_id) WHERE deleted_at IS NULL;
