ALTER TABLE users ADD COLUMN roles TEXT NOT NULL DEFAULT 'user';
--bun:split
CREATE TABLE magic_links (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash  TEXT NOT NULL UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    consumed_at TIMESTAMPTZ
);
--bun:split
CREATE INDEX magic_links_user ON magic_links (user_id);
--bun:split
CREATE TABLE refresh_tokens (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    digest       TEXT NOT NULL UNIQUE,
    sealed       TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL,
    replaced_by  TEXT
);
--bun:split
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);
--bun:split
CREATE TABLE email_change_tokens (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash  TEXT NOT NULL UNIQUE,
    new_email   TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL,
    consumed_at TIMESTAMPTZ
);
--bun:split
CREATE TABLE access_requests (
    email       TEXT PRIMARY KEY,
    ip          TEXT NOT NULL,
    status      TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    verified_at TIMESTAMPTZ
);
--bun:split
CREATE TABLE device_tokens (
    token       TEXT PRIMARY KEY,
    platform    TEXT NOT NULL,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL
);
--bun:split
CREATE INDEX device_tokens_user ON device_tokens (user_id);
--bun:split
CREATE TABLE notification_preferences (
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    category    TEXT NOT NULL,
    enabled     BOOLEAN NOT NULL,
    PRIMARY KEY (user_id, category)
);
