-- The bookmarks of the kit's own tests: a small module that is not the trip
-- planner, so the kit is shown to work from a module's fixtures alone.
CREATE TABLE bookmarks (
    id        TEXT PRIMARY KEY,
    user_id   TEXT NOT NULL,
    url       TEXT NOT NULL,
    title     TEXT NOT NULL,
    archived  BOOLEAN NOT NULL DEFAULT FALSE,
    version   BIGINT NOT NULL
);
--bun:split
CREATE INDEX bookmarks_user ON bookmarks (user_id);
