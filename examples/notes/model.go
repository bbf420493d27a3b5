package notes

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/registry"
)

// Limits of a note, judged on the merged record and published in the schema.
const (
	MaxTitle = 200
	MaxBody  = 10000
)

// Note is the stored record: what the read guard loads, the merge produces
// and validation judges. Its user is never published.
type Note struct {
	bun.BaseModel `bun:"table:notes"`

	ID        string    `bun:"id,pk"`
	UserID    string    `bun:"user_id"`
	Title     string    `bun:"title"`
	Body      string    `bun:"body"`
	Archived  bool      `bun:"archived"`
	Version   int64     `bun:"version"`
	CreatedAt time.Time `bun:"created_at"`
	UpdatedAt time.Time `bun:"updated_at"`
}

// RecordVersion implements registry.Record: the version a writer sends back.
func (n *Note) RecordVersion() int64 { return n.Version }

// Archived notes are locked: they can be read and deleted, never changed.
func locked(previous registry.Record, _ time.Time) bool { return previous.(*Note).Archived }

// LockReason is the refusal of a change to an archived note.
const LockReason = "this note is archived: it can be read or deleted, not changed"

// Violations lists every rule the note breaks.
func (n *Note) Violations() []registry.Violation {
	var vs []registry.Violation
	switch {
	case strings.TrimSpace(n.Title) == "":
		vs = append(vs, registry.Violation{Field: "title", Reason: "is required and cannot be blank"})
	case utf8.RuneCountInString(n.Title) > MaxTitle:
		vs = append(vs, registry.Violation{Field: "title", Reason: "is longer than 200 characters"})
	case strings.IndexFunc(n.Title, unicode.IsControl) >= 0:
		vs = append(vs, registry.Violation{Field: "title", Reason: "must be one line without control characters"})
	}
	switch {
	case utf8.RuneCountInString(n.Body) > MaxBody:
		vs = append(vs, registry.Violation{Field: "body", Reason: "is longer than 10000 characters"})
	case strings.ContainsRune(n.Body, 0): // PostgreSQL text cannot hold it; refuse it on every engine
		vs = append(vs, registry.Violation{Field: "body", Reason: "must not contain NUL characters"})
	}
	return vs
}

func validate(merged registry.Record) []registry.Violation { return merged.(*Note).Violations() }

// NoInput is the input of the operations addressed by their id alone.
type NoInput struct{}

// CreateInput is what a creation accepts; everything else (id, version,
// archived, dates) is the server's and is refused by name.
type CreateInput struct {
	Title string `json:"title" maxLength:"200" doc:"The note's title, one line of at most 200 characters."`
	Body  string `json:"body,omitempty" maxLength:"10000" doc:"The note's text, at most 10000 characters (default empty)."`
}

// UpdateInput is a JSON merge patch of a note: an absent field is kept.
type UpdateInput struct {
	Title    *string `json:"title,omitempty" maxLength:"200" doc:"A new title, one line of at most 200 characters."`
	Body     *string `json:"body,omitempty" maxLength:"10000" doc:"A new text, at most 10000 characters; an empty string clears it."`
	Archived *bool   `json:"archived,omitempty" doc:"True archives the note: from then on it can be read or deleted, never changed."`
}

// NoteOutput is a note as the caller sees it: what reads, creations and
// updates answer.
type NoteOutput struct {
	ID        string    `json:"id" doc:"The note's id."`
	Title     string    `json:"title" doc:"The note's title."`
	Body      string    `json:"body" doc:"The note's text."`
	Archived  bool      `json:"archived" doc:"True once archived: the note can be read or deleted, not changed."`
	Version   int64     `json:"version" doc:"Structural version; send it back to change the note (If-Match on HTTP, version on MCP)."`
	CreatedAt time.Time `json:"createdAt" doc:"When the note was created (UTC)."`
	UpdatedAt time.Time `json:"updatedAt" doc:"When the note last changed (UTC)."`
}

func outputOf(n *Note) NoteOutput {
	return NoteOutput{ID: n.ID, Title: n.Title, Body: n.Body, Archived: n.Archived, Version: n.Version,
		CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt}
}

// CreatedID implements registry.Created: what an idempotency key points at.
func (o NoteOutput) CreatedID() string { return o.ID }

// ResourceLocation implements registry.Located: the Location of a creation.
func (o NoteOutput) ResourceLocation() string { return "/notes/" + o.ID }

// ResourceVersion implements registry.Versioned: the ETag.
func (o NoteOutput) ResourceVersion() int64 { return o.Version }

// Deleted is the answer of a deletion (204 without a body on HTTP).
type Deleted struct {
	ID      string `json:"id" doc:"The id of the note that was deleted."`
	Deleted bool   `json:"deleted" doc:"Always true: the note is gone."`
}
