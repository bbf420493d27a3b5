package notes

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	"cairn.dev/cairn/registry"
)

// Notes holds the handlers. New works without fx as well.
type Notes struct{ store *Store }

// New builds the module over its store.
func New(store *Store) *Notes { return &Notes{store: store} }

// Declare adds the module's scopes and operations to reg, one declaration
// per operation with every guard written, even when the answer is "no".
func (n *Notes) Declare(reg *registry.Registry) {
	reg.DeclareScope(ScopeRead, registry.ReadScope, "Read your notes.")
	reg.DeclareScope(ScopeWrite, registry.WriteScope, "Create, change, archive and delete your notes.")

	registry.Add(reg, registry.Op[NoInput, NoteOutput]{
		ID:      "notes.get",
		Summary: "Read a note",
		HTTP:    registry.Get("/notes/{id}"),
		Tool:    registry.Tool("get_note", "Read one of the caller's notes by id: its title, text, whether it is archived, and the version update_note needs.").Viewed(NoteView),

		Scope:        ScopeRead,
		Owner:        registry.ByURIVariable("id", n.store.Owns),
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},

		Handle: n.get,
	})

	registry.Add(reg, registry.Op[CreateInput, NoteOutput]{
		ID:      "notes.create",
		Summary: "Create a note",
		HTTP:    registry.Post("/notes", http.StatusCreated),
		Tool:    registry.Tool("create_note", "Create a note with a title and an optional text; answers its id and version. Repeating the same call within five minutes answers the same note instead of making a second one.").Viewed(NoteView),

		Scope:        ScopeWrite,
		Owner:        registry.CallerOwned,
		RateLimit:    registry.PerUser(30, time.Minute),
		Merge:        n.mergeCreate,
		Validate:     registry.ValidateWith(validate),
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.CreationReplayedBy(n.replayCreate),
		Hints:        registry.Hints{},
		Record:       (*Note)(nil),

		Handle: n.create,
	})

	registry.Add(reg, registry.Op[UpdateInput, NoteOutput]{
		ID:      "notes.update",
		Summary: "Change or archive a note",
		HTTP:    registry.Patch("/notes/{id}", http.StatusOK),
		Tool:    registry.Tool("update_note", "Change a note's title or text, or archive it (archived: true; an archived note can no longer be changed). Needs the version from get_note.").Viewed(NoteView),

		Scope:        ScopeWrite,
		Owner:        registry.ByURIVariable("id", n.store.Owns),
		RateLimit:    registry.NoRateLimit,
		Load:         n.load,
		Merge:        n.mergeUpdate,
		Validate:     registry.ValidateWith(validate),
		Lock:         registry.LockWhen(LockReason, locked),
		Precondition: registry.RequireVersion,
		Confirm:      registry.ConfirmWhenLoses(archiveImpact),
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{Destructive: true},
		Record:       (*Note)(nil),

		Handle: n.update,
	})

	registry.Add(reg, registry.Op[NoInput, Deleted]{
		ID:      "notes.delete",
		Summary: "Delete a note",
		HTTP:    registry.Delete("/notes/{id}"),
		Tool:    registry.Tool("delete_note", "Delete a note, archived or not. Cannot be undone; asks for confirmation first."),

		Scope:        ScopeWrite,
		Owner:        registry.ByURIVariable("id", n.store.Owns),
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.ConfirmWith(deleteImpact),
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{Destructive: true},

		Handle: n.delete,
	})
}

func (n *Notes) get(ctx context.Context, c *registry.Call, _ *NoInput) (NoteOutput, error) {
	note, err := n.store.Get(ctx, c.Var("id"))
	if err != nil {
		return NoteOutput{}, err
	}
	return outputOf(note), nil
}

// mergeCreate builds the note the creation would write, so validation
// judges it before anything is stored.
func (n *Notes) mergeCreate(_ context.Context, _ *registry.Call, in *CreateInput) (registry.Record, error) {
	return &Note{Title: in.Title, Body: in.Body, Version: 1}, nil
}

// create runs inside the idempotency guard's transaction: the insert goes
// through storage.Conn, so the note and its key commit together.
func (n *Notes) create(ctx context.Context, c *registry.Call, _ *CreateInput) (NoteOutput, error) {
	note := c.Merged.(*Note)
	now := stamp(c.Now)
	note.ID = uuid.Must(uuid.NewV7()).String()
	note.UserID = c.UserID()
	note.CreatedAt, note.UpdatedAt = now, now
	if err := n.store.Insert(ctx, note); err != nil {
		return NoteOutput{}, err
	}
	return outputOf(note), nil
}

// replayCreate answers a repeated creation with the note the first call made.
func (n *Notes) replayCreate(ctx context.Context, _ *registry.Call, id string) (any, error) {
	note, err := n.store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	return outputOf(note), nil
}

func (n *Notes) load(ctx context.Context, c *registry.Call) (registry.Record, error) {
	return n.store.Get(ctx, c.Var("id"))
}

// mergeUpdate applies the patch onto a copy of the stored note: Previous
// stays as stored, for the lock and the precondition.
func (n *Notes) mergeUpdate(_ context.Context, c *registry.Call, in *UpdateInput) (registry.Record, error) {
	merged := *c.Previous.(*Note)
	if in.Title != nil {
		merged.Title = *in.Title
	}
	if in.Body != nil {
		merged.Body = *in.Body
	}
	if in.Archived != nil {
		merged.Archived = *in.Archived
	}
	return &merged, nil
}

func (n *Notes) update(ctx context.Context, c *registry.Call, _ *UpdateInput) (NoteOutput, error) {
	prev, merged := c.Previous.(*Note), c.Merged.(*Note)
	if merged.Title == prev.Title && merged.Body == prev.Body && merged.Archived == prev.Archived {
		return outputOf(prev), nil // nothing changes: the version stays
	}
	if err := n.store.Update(ctx, merged, prev.Version, c.Now); err != nil {
		return NoteOutput{}, err
	}
	return outputOf(merged), nil
}

// archiveImpact asks before archiving, which cannot be undone: an archived
// note is never changed again. Any other change loses nothing the version
// does not guard, so it goes ahead without asking.
func archiveImpact(_ context.Context, c *registry.Call) (registry.Impact, error) {
	prev, merged := c.Previous.(*Note), c.Merged.(*Note)
	im := registry.Impact{Summary: "changes this note", Loses: []string{}}
	if merged.Archived && !prev.Archived {
		im.Summary = "archives this note; it cannot be undone"
		im.Loses = append(im.Loses, "every further change: an archived note can be read or deleted, never changed")
	}
	return im, nil
}

// deleteImpact is shown before anything is deleted. Its text is fixed, so
// the impact of one call reads the same on both faces.
func deleteImpact(context.Context, *registry.Call) (registry.Impact, error) {
	return registry.Impact{
		Summary: "deletes this note; it cannot be undone",
		Loses:   []string{"the note's title and text", "its id, which then answers not found"},
	}, nil
}

func (n *Notes) delete(ctx context.Context, c *registry.Call, _ *NoInput) (Deleted, error) {
	if err := n.store.Delete(ctx, c.Var("id")); err != nil {
		return Deleted{}, err
	}
	return Deleted{ID: c.Var("id"), Deleted: true}, nil
}
