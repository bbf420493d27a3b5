ALTER TABLE trips DROP COLUMN out_of_zone;
--bun:split
ALTER TABLE trips DROP COLUMN coverage;
--bun:split
ALTER TABLE trips DROP COLUMN alerts;
--bun:split
ALTER TABLE stages DROP COLUMN coverage;
--bun:split
ALTER TABLE stages DROP COLUMN end_label;
--bun:split
ALTER TABLE stages DROP COLUMN start_label;
--bun:split
ALTER TABLE stages DROP COLUMN events;
--bun:split
ALTER TABLE stages DROP COLUMN resupply;
--bun:split
ALTER TABLE stages DROP COLUMN weather;
