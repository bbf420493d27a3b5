-- The record the tests' creation makes: what a module's table would be.
CREATE TABLE records (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    source_url TEXT NOT NULL,
    lim        INTEGER NOT NULL,
    version    BIGINT NOT NULL
);
