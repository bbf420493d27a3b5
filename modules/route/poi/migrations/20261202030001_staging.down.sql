DROP TABLE osm_staged_ways;
--bun:split
DROP TABLE osm_staged_pois;
