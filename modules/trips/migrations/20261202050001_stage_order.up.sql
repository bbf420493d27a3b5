-- A day's large columns (its geometry, its candidates, what the computations
-- found) move to the end of its row, after everything get_trip and
-- list_trips read of it. SQLite keeps a row's columns in their declared
-- order and spills a large value into overflow pages: a column declared
-- after the geometry was reached by reading through the whole geometry, for
-- every day of every read. The days' index also holds what the listing
-- counts and sums, so the listing reads no day's row at all.
CREATE TABLE stages_ordered (
    id                      TEXT PRIMARY KEY,
    trip_id                 TEXT NOT NULL REFERENCES trips (id) ON DELETE CASCADE,
    position                INTEGER NOT NULL,
    distance                DOUBLE PRECISION NOT NULL,
    ascent                  DOUBLE PRECISION NOT NULL,
    descent                 DOUBLE PRECISION NOT NULL,
    is_rest_day             BOOLEAN NOT NULL,
    label                   TEXT,
    start_point             TEXT NOT NULL,
    end_point               TEXT NOT NULL,
    start_label             TEXT,
    end_label               TEXT,
    selected_accommodation  TEXT,
    alerts                  TEXT,
    coverage                TEXT,
    weather                 TEXT,
    resupply                TEXT,
    events                  TEXT,
    accommodations          TEXT,
    geometry                TEXT NOT NULL
);
--bun:split
INSERT INTO stages_ordered (id, trip_id, position, distance, ascent, descent, is_rest_day, label, start_point, end_point,
        start_label, end_label, selected_accommodation, alerts, coverage, weather, resupply, events, accommodations, geometry)
    SELECT id, trip_id, position, distance, ascent, descent, is_rest_day, label, start_point, end_point,
        start_label, end_label, selected_accommodation, alerts, coverage, weather, resupply, events, accommodations, geometry
    FROM stages ORDER BY trip_id, position;
--bun:split
DROP TABLE stages;
--bun:split
ALTER TABLE stages_ordered RENAME TO stages;
--bun:split
CREATE INDEX stages_trip ON stages (trip_id, position, is_rest_day, distance);
