DROP TABLE oauth_refresh_tokens;
--bun:split
DROP TABLE oauth_authorizations;
--bun:split
DROP TABLE oauth_clients;
