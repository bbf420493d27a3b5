DROP TABLE confirmation_tokens;
--bun:split
DROP TABLE idempotency_keys;
