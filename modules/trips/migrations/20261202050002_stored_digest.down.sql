ALTER TABLE trips DROP COLUMN days_digest_revision;
--bun:split
ALTER TABLE trips DROP COLUMN days_digest;
