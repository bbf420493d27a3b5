DROP TABLE notification_preferences;
--bun:split
DROP TABLE device_tokens;
--bun:split
DROP TABLE access_requests;
--bun:split
DROP TABLE email_change_tokens;
--bun:split
DROP TABLE refresh_tokens;
--bun:split
DROP TABLE magic_links;
--bun:split
ALTER TABLE users DROP COLUMN roles;
