-- The gear lists of the kit's own tests: a list of a user's, and the items
-- on it, a child resource addressed through its list.
CREATE TABLE gear_lists (
    id       TEXT PRIMARY KEY,
    user_id  TEXT NOT NULL,
    title    TEXT NOT NULL,
    version  BIGINT NOT NULL
);
--bun:split
CREATE TABLE gear_items (
    id       TEXT PRIMARY KEY,
    list_id  TEXT NOT NULL,
    name     TEXT NOT NULL,
    grams    BIGINT NOT NULL,
    note     TEXT NOT NULL,
    packed   BOOLEAN NOT NULL DEFAULT FALSE,
    version  BIGINT NOT NULL
);
