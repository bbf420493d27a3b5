-- What the digest cache compares: bumped by every write to a trip, its
-- days or its share, including the pipeline's writes that leave the
-- version alone. A cached digest whose revision is the stored one is the
-- stored trip.
ALTER TABLE trips ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
