DROP INDEX oauth_refresh_tokens_family;
--bun:split
ALTER TABLE oauth_refresh_tokens DROP COLUMN replaced_by;
--bun:split
ALTER TABLE oauth_refresh_tokens DROP COLUMN sealed;
--bun:split
ALTER TABLE oauth_refresh_tokens DROP COLUMN family;
