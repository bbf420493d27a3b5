ALTER TABLE magic_links DROP COLUMN next;
