DROP TABLE trip_shares;
--bun:split
ALTER TABLE stages DROP COLUMN selected_accommodation;
--bun:split
ALTER TABLE stages DROP COLUMN accommodations;
