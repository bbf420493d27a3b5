-- The unique index is the idempotency mechanism, not a lookup aid: two
-- concurrent creations with one key cannot both commit.
CREATE TABLE idempotency_keys (
    user_id         TEXT NOT NULL,
    operation       TEXT NOT NULL,
    idem_key        TEXT NOT NULL,
    request_digest  TEXT NOT NULL,
    created_id      TEXT,
    created_at      TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, operation, idem_key)
);
--bun:split
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
--bun:split
CREATE TABLE confirmation_tokens (
    token_hash  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    operation   TEXT NOT NULL,
    digest      TEXT NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    used_at     TIMESTAMPTZ
);
--bun:split
CREATE INDEX confirmation_tokens_expiry ON confirmation_tokens (expires_at);
