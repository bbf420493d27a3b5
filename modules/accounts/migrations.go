package accounts

import (
	"embed"

	"cairn.dev/cairn/migrations"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the module's tables, contributed to the application's history.
var Migrations = migrations.Dir("accounts", migrationFiles, "migrations")
