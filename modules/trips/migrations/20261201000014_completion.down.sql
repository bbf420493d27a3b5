ALTER TABLE trips DROP COLUMN completion_announced;
