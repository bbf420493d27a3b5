-- The columns keep their new order, which no query depends on; the days'
-- index goes back to the trip and the position.
DROP INDEX stages_trip;
--bun:split
CREATE INDEX stages_trip ON stages (trip_id, position);
