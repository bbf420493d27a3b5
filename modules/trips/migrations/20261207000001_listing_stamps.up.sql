-- How often each user's trips were written: every write to a trip, its
-- days or its share moves its owner's stamp on before it commits, creations
-- and deletions included. A listing kept at a stamp is given again while
-- the stamp stands, checked by one read of a key in place of the listing's
-- page and count. A user without a row has never been written since the
-- table existed: stamp 0.
CREATE TABLE trip_listing_stamps (
    user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    stamp   BIGINT NOT NULL
);
