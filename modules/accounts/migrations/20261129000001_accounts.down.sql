DROP TABLE access_tokens;
--bun:split
DROP TABLE users;
