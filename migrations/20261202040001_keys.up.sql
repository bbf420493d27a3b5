-- Keys the replicas share: the first to start draws each at random, every
-- other reads it (the seal of the state a tool keeps while it asks its
-- caller for input).
CREATE TABLE framework_keys (
    name        TEXT PRIMARY KEY,
    secret      TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL
);
