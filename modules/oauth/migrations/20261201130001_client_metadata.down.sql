ALTER TABLE oauth_clients DROP COLUMN metadata_expires_at;
