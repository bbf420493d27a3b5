DROP TABLE trip_listing_stamps;
