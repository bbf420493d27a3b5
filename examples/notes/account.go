package notes

import (
	"context"

	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/storage"
)

// accountData is what a person's account holds of notes: the account's
// export lists them, its deletion forgets them (in its transaction, so
// through storage.Conn).
type accountData struct{ store *Store }

var _ accounts.Holder = accountData{}

// Section implements accounts.Holder: the export's key.
func (accountData) Section() string { return "notes" }

// Forget implements accounts.Holder.
func (d accountData) Forget(ctx context.Context, userID string) error {
	_, err := storage.Conn(ctx, d.store.db).NewDelete().Model((*Note)(nil)).Where("user_id = ?", userID).Exec(ctx)
	return err
}

// Export implements accounts.Holder: the person's notes, oldest first, as
// reads answer them.
func (d accountData) Export(ctx context.Context, userID string) (any, error) {
	var ns []Note
	err := storage.Conn(ctx, d.store.db).NewSelect().Model(&ns).Where("user_id = ?", userID).Order("created_at", "id").Scan(ctx)
	if err != nil && !storage.NoRows(err) {
		return nil, err
	}
	out := make([]NoteOutput, 0, len(ns))
	for i := range ns {
		out = append(out, outputOf(&ns[i]))
	}
	return out, nil
}
