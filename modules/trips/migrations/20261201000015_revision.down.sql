ALTER TABLE trips DROP COLUMN revision;
