DROP TABLE trip_scans;
