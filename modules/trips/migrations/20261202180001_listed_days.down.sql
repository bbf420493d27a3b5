ALTER TABLE trips DROP COLUMN listed_distance;
--bun:split
ALTER TABLE trips DROP COLUMN listed_days;
