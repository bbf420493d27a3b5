DROP INDEX refresh_tokens_family;
--bun:split
ALTER TABLE refresh_tokens DROP COLUMN used_at;
--bun:split
ALTER TABLE refresh_tokens DROP COLUMN family;
--bun:split
DROP INDEX access_tokens_family;
--bun:split
ALTER TABLE access_tokens DROP COLUMN family;
