-- Whether trip_complete has been published since the trip's computations
-- last settled: it is published once, and nothing of that round after it
-- (a stream ends at trip_complete). Any status set back to pending or
-- running clears it.
ALTER TABLE trips ADD COLUMN completion_announced BOOLEAN NOT NULL DEFAULT FALSE;
