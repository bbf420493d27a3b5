ALTER TABLE access_tokens DROP COLUMN resource;
