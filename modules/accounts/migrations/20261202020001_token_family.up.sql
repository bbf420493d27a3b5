ALTER TABLE access_tokens ADD COLUMN family TEXT NOT NULL DEFAULT '';
--bun:split
CREATE INDEX access_tokens_family ON access_tokens (family);
--bun:split
ALTER TABLE refresh_tokens ADD COLUMN family TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE refresh_tokens ADD COLUMN used_at TIMESTAMPTZ;
--bun:split
UPDATE refresh_tokens SET family = id;
--bun:split
CREATE INDEX refresh_tokens_family ON refresh_tokens (family);
