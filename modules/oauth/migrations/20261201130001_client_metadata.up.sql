ALTER TABLE oauth_clients ADD COLUMN metadata_expires_at TIMESTAMPTZ;
