ALTER TABLE oauth_refresh_tokens ADD COLUMN family TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE oauth_refresh_tokens ADD COLUMN sealed TEXT NOT NULL DEFAULT '';
--bun:split
ALTER TABLE oauth_refresh_tokens ADD COLUMN replaced_by TEXT;
--bun:split
UPDATE oauth_refresh_tokens SET family = digest;
--bun:split
DELETE FROM oauth_refresh_tokens WHERE used_at IS NOT NULL;
--bun:split
CREATE INDEX oauth_refresh_tokens_family ON oauth_refresh_tokens (family);
