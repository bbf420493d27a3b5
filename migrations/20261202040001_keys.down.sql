DROP TABLE framework_keys;
