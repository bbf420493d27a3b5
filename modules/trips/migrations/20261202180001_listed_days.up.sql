-- What the listing gives of a trip's days (how many riding days, and
-- their distance summed), kept beside days_digest and true at the same
-- days_digest_revision: a listing whose trip is at that revision reads
-- them from the trip's row, in place of counting its days.
ALTER TABLE trips ADD COLUMN listed_days INTEGER;
--bun:split
ALTER TABLE trips ADD COLUMN listed_distance DOUBLE PRECISION;
--bun:split
UPDATE trips SET
	listed_days = (SELECT COUNT(*) FROM stages AS s WHERE s.trip_id = trips.id AND NOT s.is_rest_day),
	listed_distance = (SELECT COALESCE(SUM(s.distance), 0.0) FROM stages AS s WHERE s.trip_id = trips.id AND NOT s.is_rest_day);
