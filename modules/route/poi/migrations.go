package poi

import (
	"embed"

	"cairn.dev/cairn/migrations"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the points-of-interest store's tables.
var Migrations = migrations.Dir("poi", migrationFiles, "migrations")
