package oauth

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/storage"
)

// Grants is the authorization server's part of an account: the
// applications the person let in. The account's deletion forgets every
// grant (refresh tokens and authorization requests; the access tokens go
// with the account's own) and its export lists them. It needs only the
// database, so that the account door, which collects holders, does not
// wait on the server that needs the door.
type Grants struct{ db *bun.DB }

var _ accounts.Holder = Grants{}

// NewGrants returns the grants kept in db.
func NewGrants(db *bun.DB) Grants { return Grants{db: db} }

// Section is the export's key for the grants.
func (Grants) Section() string { return "connectedApps" }

// Forget deletes the person's refresh tokens and authorization requests,
// in the transaction ctx carries.
func (g Grants) Forget(ctx context.Context, userID string) error {
	db := storage.Conn(ctx, g.db)
	if _, err := db.NewDelete().Model((*refreshToken)(nil)).Where("user_id = ?", userID).Exec(ctx); err != nil {
		return err
	}
	_, err := db.NewDelete().Model((*authorization)(nil)).Where("user_id = ?", userID).Exec(ctx)
	return err
}

// ExportedGrant is one application's live access in an account's export.
type ExportedGrant struct {
	ClientID string    `json:"clientId"`
	Scope    string    `json:"scope"`
	Since    time.Time `json:"since"`
}

// Export lists the live grants, one per application, oldest first.
func (g Grants) Export(ctx context.Context, userID string) (any, error) {
	var rows []refreshToken
	err := storage.Conn(ctx, g.db).NewSelect().Model(&rows).
		Where("user_id = ? AND used_at IS NULL AND expires_at > ?", userID, time.Now().UTC()).OrderExpr("created_at, digest").Scan(ctx)
	if err != nil && !storage.NoRows(err) {
		return nil, err
	}
	out := []ExportedGrant{}
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.ClientID] {
			seen[r.ClientID] = true
			out = append(out, ExportedGrant{ClientID: r.ClientID, Scope: r.Scope, Since: r.CreatedAt.UTC()})
		}
	}
	return out, nil
}
