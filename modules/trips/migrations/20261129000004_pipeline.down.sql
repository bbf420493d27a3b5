DROP TABLE computations;
--bun:split
DROP TABLE stages;
--bun:split
DROP TABLE trip_routes;
--bun:split
ALTER TABLE trips DROP COLUMN generation;
