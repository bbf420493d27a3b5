// Package guardstore keeps what the idempotency and confirmation guards
// remember, in the database: a unique index is what makes a key claim safe
// under concurrency, and replicas share it.
package guardstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/storage"
)

type keyRow struct {
	bun.BaseModel `bun:"table:idempotency_keys"`

	UserID        string    `bun:"user_id,pk"`
	Operation     string    `bun:"operation,pk"`
	Key           string    `bun:"idem_key,pk"`
	RequestDigest string    `bun:"request_digest"`
	CreatedID     *string   `bun:"created_id"`
	CreatedAt     time.Time `bun:"created_at"`
}

// Keys implements guards.IdempotencyStore.
type Keys struct{ DB *bun.DB }

var _ guards.IdempotencyStore = Keys{}

// Claim inserts the key row in the transaction carried by ctx. On a
// conflict the insert does nothing (on PostgreSQL it first waits for the
// transaction holding the key), and the existing row is returned.
func (k Keys) Claim(ctx context.Context, key guards.IdempotencyKey, ttl time.Duration) (guards.Claimed, error) {
	db := storage.Conn(ctx, k.DB)
	now := time.Now().UTC()
	if _, err := db.NewDelete().Model((*keyRow)(nil)).
		Where("user_id = ? AND operation = ? AND idem_key = ? AND created_at < ?", key.UserID, key.OpID, key.Key, now.Add(-ttl)).
		Exec(ctx); err != nil {
		return guards.Claimed{}, err
	}
	row := &keyRow{UserID: key.UserID, Operation: key.OpID, Key: key.Key, RequestDigest: key.Digest, CreatedAt: now}
	res, err := db.NewInsert().Model(row).On("CONFLICT DO NOTHING").Exec(ctx)
	if err != nil {
		return guards.Claimed{}, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return guards.Claimed{}, nil
	}
	existing := new(keyRow)
	if err := db.NewSelect().Model(existing).
		Where("user_id = ? AND operation = ? AND idem_key = ?", key.UserID, key.OpID, key.Key).
		Scan(ctx); err != nil {
		return guards.Claimed{}, err
	}
	c := guards.Claimed{Existing: true, Digest: existing.RequestDigest}
	if existing.CreatedID != nil {
		c.CreatedID = *existing.CreatedID
	}
	return c, nil
}

// Complete records the id the creation made, in the same transaction.
func (k Keys) Complete(ctx context.Context, key guards.IdempotencyKey, createdID string) error {
	_, err := storage.Conn(ctx, k.DB).NewUpdate().Model((*keyRow)(nil)).
		Set("created_id = ?", createdID).
		Where("user_id = ? AND operation = ? AND idem_key = ?", key.UserID, key.OpID, key.Key).
		Exec(ctx)
	return err
}

// Committed reports whether key, with the same digest, names a creation
// that committed less than ttl ago: a replay the rate limit does not count.
func (k Keys) Committed(ctx context.Context, key guards.IdempotencyKey, ttl time.Duration) (bool, error) {
	return storage.Conn(ctx, k.DB).NewSelect().Model((*keyRow)(nil)).
		Where("user_id = ? AND operation = ? AND idem_key = ?", key.UserID, key.OpID, key.Key).
		Where("request_digest = ? AND created_id IS NOT NULL AND created_at >= ?", key.Digest, time.Now().UTC().Add(-ttl)).
		Exists(ctx)
}

// Purge forgets keys past their lifetime (guards.KeyTTL) and reports how many.
func (k Keys) Purge(ctx context.Context) (int64, error) { return k.PurgeOlder(ctx, guards.KeyTTL) }

// PurgeOlder forgets keys older than age and reports how many.
func (k Keys) PurgeOlder(ctx context.Context, age time.Duration) (int64, error) {
	res, err := k.DB.NewDelete().Model((*keyRow)(nil)).
		Where("created_at < ?", time.Now().UTC().Add(-age)).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

type confirmationRow struct {
	bun.BaseModel `bun:"table:confirmation_tokens"`

	TokenHash string     `bun:"token_hash,pk"`
	UserID    string     `bun:"user_id"`
	Operation string     `bun:"operation"`
	Digest    string     `bun:"digest"`
	ExpiresAt time.Time  `bun:"expires_at"`
	UsedAt    *time.Time `bun:"used_at"`
}

// Confirmations implements guards.ConfirmationStore. Tokens are 256 random
// bits, stored only as their hash.
type Confirmations struct{ DB *bun.DB }

var _ guards.ConfirmationStore = Confirmations{}

// Issue stores a fresh token bound to user, operation and digest.
func (s Confirmations) Issue(ctx context.Context, userID, opID, digest string, ttl time.Duration) (string, time.Time, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", time.Time{}, err
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	exp := time.Now().UTC().Add(ttl)
	_, err := storage.Conn(ctx, s.DB).NewInsert().Model(&confirmationRow{
		TokenHash: hash(token), UserID: userID, Operation: opID, Digest: digest, ExpiresAt: exp,
	}).Exec(ctx)
	return token, exp, err
}

// Consume marks the token used, once: the conditional update is what makes
// two concurrent uses give one success.
func (s Confirmations) Consume(ctx context.Context, token, userID, opID, digest string) error {
	now := time.Now().UTC()
	res, err := storage.Conn(ctx, s.DB).NewUpdate().Model((*confirmationRow)(nil)).
		Set("used_at = ?", now).
		Where("token_hash = ? AND user_id = ? AND operation = ? AND digest = ?", hash(token), userID, opID, digest).
		Where("used_at IS NULL AND expires_at > ?", now).
		Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return guards.ErrTokenRefused
	}
	return nil
}

// Purge forgets tokens that expired before now.
func (s Confirmations) Purge(ctx context.Context) (int64, error) {
	res, err := s.DB.NewDelete().Model((*confirmationRow)(nil)).
		Where("expires_at < ?", time.Now().UTC()).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

type frameworkKey struct {
	bun.BaseModel `bun:"table:framework_keys"`

	Name      string    `bun:"name,pk"`
	Secret    string    `bun:"secret"`
	CreatedAt time.Time `bun:"created_at"`
}

// InputKeys implements guards.InputKeys: the key is drawn at random by the
// first replica that needs it and read by every other from the database,
// then kept in memory.
type InputKeys struct {
	DB *bun.DB

	mu  sync.Mutex
	key []byte
}

var _ guards.InputKeys = (*InputKeys)(nil)

// inputKeyName names the seal's key among the framework's keys.
const inputKeyName = "input-state"

// Key returns the shared key, reading it (or drawing it, the first time
// any replica does) outside any transaction of ctx.
func (k *InputKeys) Key(ctx context.Context) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key != nil {
		return k.key, nil
	}
	ctx = context.WithoutCancel(ctx)
	var row frameworkKey
	err := k.DB.NewSelect().Model(&row).Where("name = ?", inputKeyName).Scan(ctx)
	if storage.NoRows(err) {
		secret := make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, err
		}
		drawn := frameworkKey{Name: inputKeyName, Secret: hex.EncodeToString(secret), CreatedAt: time.Now().UTC()}
		if _, err := k.DB.NewInsert().Model(&drawn).On("CONFLICT (name) DO NOTHING").Exec(ctx); err != nil {
			return nil, err
		}
		// Another replica may have drawn it first: theirs is the key.
		err = k.DB.NewSelect().Model(&row).Where("name = ?", inputKeyName).Scan(ctx)
	}
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(row.Secret)
	if err != nil {
		return nil, err
	}
	k.key = key
	return key, nil
}
