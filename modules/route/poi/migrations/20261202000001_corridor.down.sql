DROP TABLE osm_imports;
--bun:split
DROP TABLE osm_coverage;
--bun:split
DROP TABLE osm_ways;
--bun:split
DROP INDEX pois_tile;
--bun:split
ALTER TABLE pois DROP COLUMN import_id;
--bun:split
ALTER TABLE pois DROP COLUMN tile;
