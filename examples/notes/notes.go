// Package notes is a small product built on Cairn the way an outside team
// builds one: against the framework's public packages only. It keeps each
// user's notes and serves four operations — read, idempotent creation,
// versioned update and confirmed deletion — over HTTP and as MCP tools,
// with every guard declared once on each operation.
//
// The package is both the feature module (Module: its store, its
// declarations, its scopes, Migrations) and the product that composes it
// (Product: the module and a development token store). cmd/notes serves it.
package notes

import (
	"embed"

	"go.uber.org/fx"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/tokens"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/registry"
)

// The product's scopes, declared by the module (Declare) rather than edited
// into a shared list.
const (
	ScopeRead  registry.Scope = "notes:read"
	ScopeWrite registry.Scope = "notes:write"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the module's tables, contributed to the product's one
// ordered history. The same files run on PostgreSQL and SQLite.
var Migrations = migrations.Dir("notes", migrationFiles, "migrations")

// Module provides the note store, the handlers and their declarations, in
// the fx group the framework builds its registry from.
var Module = fx.Module("notes", fx.Provide(NewStore, New, declarations))

type contributed struct {
	fx.Out
	Declare registry.Declarer `group:"declarations"`
}

func declarations(n *Notes) contributed { return contributed{Declare: n.Declare} }

// Version is the product's version.
const Version = "0.1.0"

// Product is the notes service as the framework composes it. Its tokens
// live in memory (tokens.Memory): fine for development and tests; a
// product in production provides an accounts store of its own instead.
func Product() app.Product {
	return app.Product{
		Name:        "notes",
		Title:       "Notes",
		Version:     Version,
		Description: "Keep short notes: write, read, change and delete them. Every operation is also an MCP tool at /mcp.",
		Instructions: "This server keeps the caller's notes. create_note writes one and answers its id; get_note reads it " +
			"with the version that update_note needs back. An archived note can be read or deleted, never changed. " +
			"delete_note answers an impact summary and a confirmationToken first, and deletes when called again with it.",
		Modules: []app.Module{
			{Name: "notes", Options: Module, Migrations: []migrations.Source{Migrations}},
			{Name: "tokens", Options: fx.Provide(tokens.NewMemory,
				func(m *tokens.Memory) guards.Authenticator { return m },
				func(m *tokens.Memory) app.TokenIssuer { return m })},
		},
	}
}
