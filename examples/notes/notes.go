// Package notes is a small product built on Cairn the way an outside team
// builds one: against the framework's public packages and the human door
// only. It keeps each user's notes and serves four operations — read,
// idempotent creation, versioned update and confirmed deletion — over HTTP
// and as MCP tools, with every guard declared once on each operation.
//
// The package is both the feature module (Module: its store, its
// declarations, its scopes, Migrations) and the product that composes it
// (Product: the module and the door, through which people sign in by a
// mailed link and MCP clients connect by OAuth). cmd/notes serves it.
package notes

import (
	"embed"

	"go.uber.org/fx"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/door"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/modules/accounts"
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
// the fx group the framework builds its registry from, and what a
// person's account holds of notes, in the door's group.
var Module = fx.Module("notes", fx.Provide(NewStore, New, contributions))

type contributed struct {
	fx.Out
	Declare registry.Declarer `group:"declarations"`
	Account accounts.Holder   `group:"account_holders"`
}

func contributions(n *Notes, s *Store) contributed {
	return contributed{Declare: n.Declare, Account: accountData{store: s}}
}

// Version is the product's version.
const Version = "0.1.0"

// Product is the notes service as the framework composes it: its module,
// then the door's (accounts, OAuth for MCP clients, mail), with the words
// the door says of notes (its name on the sign-in and consent pages and in
// the mails, and the mails' sender).
func Product() app.Product {
	return app.Product{
		Name:    "notes",
		Title:   "Notes",
		Version: Version,
		Description: "Keep short notes: write, read, change and delete them. Every notes operation is also an MCP tool at /mcp. " +
			"People sign in by a mailed link (`POST /auth/request-link`, then `POST /auth/verify`); MCP clients connect by OAuth.",
		Instructions: "This server keeps the caller's notes. create_note writes one and answers its id; get_note reads it " +
			"with the version that update_note needs back. An archived note can be read or deleted, never changed. " +
			"delete_note answers an impact summary and a confirmationToken first, and deletes when called again with it.",
		Modules: append([]app.Module{
			{Name: "notes", Options: Module, Migrations: []migrations.Source{Migrations}},
		}, door.Modules(door.Words{Title: "Notes", MailFrom: "Notes <no-reply@notes.example>"})...),
		OwnAuthorizationServer: true,
	}
}
