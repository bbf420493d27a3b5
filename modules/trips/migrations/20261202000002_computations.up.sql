-- What the thirteen enrichments write beside the terrain and the
-- accommodations: each day's weather, curated resupply, events, the names
-- of its ends and what could not be looked at there; the trip's own alerts
-- (wind, comfort) and, per computation, why it could not look everywhere.
-- A day's alerts become groups by computation ({"terrain": [...], ...});
-- a stored list reads as the terrain group.
ALTER TABLE stages ADD COLUMN weather TEXT;
--bun:split
ALTER TABLE stages ADD COLUMN resupply TEXT;
--bun:split
ALTER TABLE stages ADD COLUMN events TEXT;
--bun:split
ALTER TABLE stages ADD COLUMN start_label TEXT;
--bun:split
ALTER TABLE stages ADD COLUMN end_label TEXT;
--bun:split
ALTER TABLE stages ADD COLUMN coverage TEXT;
--bun:split
ALTER TABLE trips ADD COLUMN alerts TEXT;
--bun:split
ALTER TABLE trips ADD COLUMN coverage TEXT;
--bun:split
ALTER TABLE trips ADD COLUMN out_of_zone BOOLEAN NOT NULL DEFAULT FALSE;
