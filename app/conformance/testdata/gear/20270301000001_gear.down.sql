DROP TABLE gear_items;
--bun:split
DROP TABLE gear_lists;
