package guardstore_test

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/app/guardstore"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// The records table stands for what a module creates, contributed as a
// module contributes its migrations.
//
//go:embed testdata/*.sql
var files embed.FS

var records = migrations.Dir("records", files, "testdata")

// record is the row a creation makes; Limit is a setting two writers change.
type record struct {
	bun.BaseModel `bun:"table:records"`

	ID        string `bun:"id,pk"`
	UserID    string `bun:"user_id"`
	SourceURL string `bun:"source_url"`
	Limit     int    `bun:"lim"`
	Version   int64  `bun:"version"`
}

var errStale = errors.New("the record changed meanwhile")

// get and update are a module's store: every query through storage.Conn.
func get(ctx context.Context, db *bun.DB, id string) (*record, error) {
	r := new(record)
	return r, storage.Conn(ctx, db).NewSelect().Model(r).Where("id = ?", id).Scan(ctx)
}

func update(ctx context.Context, db *bun.DB, r *record, expected int64) error {
	r.Version = expected + 1
	res, err := storage.Conn(ctx, db).NewUpdate().Model(r).Column("lim", "version").WherePK().
		Where("version = ?", expected).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errStale
	}
	return nil
}

// created is what the fake creation answers.
type created struct{ ID string }

func (c created) CreatedID() string { return c.ID }

type fixture struct {
	db     *bun.DB
	guard  guards.Idempotency
	op     *registry.Operation
	userID string
}

func setup(t *testing.T, db *bun.DB) fixture {
	t.Helper()
	f := fixture{db: db, userID: "user-" + uuid.NewString()}
	f.guard = guards.Idempotency{Store: guardstore.Keys{DB: db}, Tx: storage.Tx{DB: db}}
	f.op = &registry.Operation{ID: "records.create", Idempotency: registry.CreationReplayedBy(
		func(ctx context.Context, c *registry.Call, id string) (any, error) {
			r, err := get(ctx, db, id)
			if err != nil {
				return nil, err
			}
			return created{ID: r.ID}, nil
		})}
	return f
}

// create runs the idempotency guard around an insert, as the chain does.
func (f fixture) create(ctx context.Context, userID, key, source string) (string, error) {
	c := &registry.Call{
		Op: f.op, Principal: &registry.Principal{UserID: userID}, IdempotencyKey: key,
		Args: map[string]json.RawMessage{"sourceUrl": json.RawMessage(`"` + source + `"`)},
	}
	err := f.guard.Check(ctx, c, func(ctx context.Context, c *registry.Call) error {
		r := &record{ID: uuid.Must(uuid.NewV7()).String(), UserID: c.UserID(), SourceURL: source, Limit: 80, Version: 1}
		if _, err := storage.Conn(ctx, f.db).NewInsert().Model(r).Exec(ctx); err != nil {
			return err
		}
		c.Output = created{ID: r.ID}
		return nil
	})
	if err != nil {
		return "", err
	}
	return c.Output.(created).ID, nil
}

func (f fixture) count(t *testing.T, userID string) int {
	n, err := f.db.NewSelect().Table("records").Where("user_id = ?", userID).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

// TestConcurrentCreationsWithOneKey: 50 concurrent creations carrying one
// key give one record, and every caller receives it.
func TestConcurrentCreationsWithOneKey(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{records}, func(t *testing.T, db *bun.DB) {
		f := setup(t, db)
		const n = 50
		ids := make([]string, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ids[i], errs[i] = f.create(context.Background(), f.userID, "one-key-for-one-intent", "https://example.com/source/1")
			}()
		}
		close(start)
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i], "caller %d", i)
			require.Equal(t, ids[0], ids[i], "caller %d got another record", i)
		}
		require.Equal(t, 1, f.count(t, f.userID), "exactly one record was stored")
	})
}

func TestIdempotencyKeys(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{records}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		f := setup(t, db)

		first, err := f.create(ctx, f.userID, "replayed-key-0001", "https://example.com/source/1")
		require.NoError(t, err)
		again, err := f.create(ctx, f.userID, "replayed-key-0001", "https://example.com/source/1")
		require.NoError(t, err)
		require.Equal(t, first, again, "a replay answers the first record")

		_, err = f.create(ctx, f.userID, "replayed-key-0001", "https://example.com/source/2")
		var e *registry.Error
		require.True(t, errors.As(err, &e))
		require.Equal(t, registry.KindConflict, e.Kind, "same key, another body: 409")
		require.Equal(t, 1, f.count(t, f.userID), "nothing more was stored")

		other := setup(t, db)
		theirs, err := other.create(ctx, other.userID, "replayed-key-0001", "https://example.com/source/1")
		require.NoError(t, err)
		require.NotEqual(t, first, theirs, "two users with one key string get two records")

		_, err = f.create(ctx, f.userID, "short", "https://example.com/source/1")
		require.True(t, errors.As(err, &e))
		require.Equal(t, registry.KindMalformed, e.Kind)

		// Past its lifetime a key is a new intent.
		_, err = db.NewUpdate().Table("idempotency_keys").Set("created_at = ?", time.Now().UTC().Add(-25*time.Hour)).
			Where("user_id = ?", f.userID).Exec(ctx)
		require.NoError(t, err)
		later, err := f.create(ctx, f.userID, "replayed-key-0001", "https://example.com/source/1")
		require.NoError(t, err)
		require.NotEqual(t, first, later)

		_, err = db.NewUpdate().Table("idempotency_keys").Set("created_at = ?", time.Now().UTC().Add(-25*time.Hour)).
			Where("user_id = ?", f.userID).Exec(ctx)
		require.NoError(t, err)
		purged, err := guardstore.Keys{DB: db}.Purge(ctx)
		require.NoError(t, err)
		require.EqualValues(t, 1, purged)
	})
}

// TestAFailedCreationLeavesNoKey: the key and the record commit together,
// so a creation that fails leaves the key free for the retry.
func TestAFailedCreationLeavesNoKey(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{records}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		f := setup(t, db)
		c := &registry.Call{Op: f.op, Principal: &registry.Principal{UserID: f.userID}, IdempotencyKey: "failing-key-00001"}
		boom := errors.New("boom")
		err := f.guard.Check(ctx, c, func(context.Context, *registry.Call) error { return boom })
		require.ErrorIs(t, err, boom)
		n, err := db.NewSelect().Table("idempotency_keys").Where("user_id = ?", f.userID).Count(ctx)
		require.NoError(t, err)
		require.Zero(t, n, "no key row without its record")
		_, err = f.create(ctx, f.userID, "failing-key-00001", "https://example.com/source/1")
		require.NoError(t, err, "the retry goes through")
	})
}

// TestTwoWritersOneVersion: two concurrent writers holding one version give
// one success and one precondition failure.
func TestTwoWritersOneVersion(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, []migrations.Source{records}, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		f := setup(t, db)
		id, err := f.create(ctx, f.userID, "writers-key-00001", "https://example.com/source/1")
		require.NoError(t, err)
		results := make(chan error, 2)
		for i := range 2 {
			go func() {
				r, err := get(ctx, db, id)
				if err != nil {
					results <- err
					return
				}
				r.Limit = 100 + i
				results <- storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error { return update(ctx, db, r, 1) })
			}()
		}
		var ok, stale int
		for range 2 {
			err := <-results
			switch {
			case err == nil:
				ok++
			case errors.Is(err, errStale):
				stale++
			default:
				t.Fatalf("unexpected: %v", err)
			}
		}
		require.Equal(t, 1, ok)
		require.Equal(t, 1, stale)
		r, err := get(ctx, db, id)
		require.NoError(t, err)
		require.EqualValues(t, 2, r.Version)
	})
}

func TestConfirmationTokens(t *testing.T) {
	t.Parallel()
	storagetest.Engines(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := guardstore.Confirmations{DB: db}
		tok, exp, err := s.Issue(ctx, "u1", "records.delete", "digest-a", time.Minute)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(tok), 22, "at least 128 bits")
		require.WithinDuration(t, time.Now().Add(time.Minute), exp, 5*time.Second)

		tests := []struct {
			name, user, op, digest string
		}{
			{"another user", "u2", "records.delete", "digest-a"},
			{"another operation", "u1", "records.update", "digest-a"},
			{"other arguments", "u1", "records.delete", "digest-b"},
		}
		for _, tt := range tests {
			require.ErrorIs(t, s.Consume(ctx, tok, tt.user, tt.op, tt.digest), guards.ErrTokenRefused, tt.name)
		}
		// Concurrent uses of one token: exactly one succeeds.
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.Consume(ctx, tok, "u1", "records.delete", "digest-a") == nil {
					mu.Lock()
					wins++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		require.Equal(t, 1, wins, "a token is single-use")

		expired, _, err := s.Issue(ctx, "u1", "records.delete", "digest-a", -time.Second)
		require.NoError(t, err)
		require.ErrorIs(t, s.Consume(ctx, expired, "u1", "records.delete", "digest-a"), guards.ErrTokenRefused, "expired")
	})
}

// TestReplicasShareTheInputKey: replicas on one database seal with one key,
// drawn by the first that asks, even when they ask at once.
func TestReplicasShareTheInputKey(t *testing.T) {
	t.Parallel()
	storagetest.Engines(t, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		replicas := make([]*guardstore.InputKeys, 4)
		keys := make([][]byte, len(replicas))
		var wg sync.WaitGroup
		for i := range replicas {
			replicas[i] = &guardstore.InputKeys{DB: db}
			wg.Add(1)
			go func() {
				defer wg.Done()
				k, err := replicas[i].Key(ctx)
				assert.NoError(t, err)
				keys[i] = k
			}()
		}
		wg.Wait()
		require.Len(t, keys[0], 32)
		for _, k := range keys[1:] {
			require.Equal(t, keys[0], k)
		}
		restarted, err := (&guardstore.InputKeys{DB: db}).Key(ctx)
		require.NoError(t, err)
		require.Equal(t, keys[0], restarted, "a replica started later reads the same key")
	})
}
