-- A trip's days as get_trip lists them, written by every write to the trip
-- before it commits, and the revision they were written at. A read whose
-- trip is at that revision reads them with the trip's row, in place of
-- joining every day; any other reads the days (a trip stored before this
-- column existed, until its next write). Their form is the store's own
-- (keptdays.go), read without a decoder.
ALTER TABLE trips ADD COLUMN days_digest BYTEA;
--bun:split
ALTER TABLE trips ADD COLUMN days_digest_revision BIGINT;
