package planner

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/route/source"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/outbound"
	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage/storagetest"
)

// TestPermanentNamesTheFailure: a fetch that retrying cannot fix is named
// as get_trip gives it; a provider down is left to the retries.
func TestPermanentNamesTheFailure(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		give *source.Error
		want string
	}{
		{"removed", &source.Error{Code: source.CodeFetchFailed, Err: &outbound.StatusError{Code: 404}}, trips.FailureNotFound},
		{"private", &source.Error{Code: source.CodeFetchFailed, Err: &outbound.StatusError{Code: 403}}, trips.FailureNotFound},
		{"unsupported", &source.Error{Code: source.CodeFetchFailed, Err: &source.UnsupportedError{Reason: source.ReasonHost}}, trips.FailureUnsupported},
		{"a refused redirect", &source.Error{Code: source.CodeFetchFailed, Err: outbound.ErrRedirect}, trips.FailureRefused},
		{"empty", &source.Error{Code: source.CodeEmptyRoute}, trips.FailureEmpty},
		{"down", &source.Error{Code: source.CodeFetchFailed, Err: &outbound.StatusError{Code: 503}}, ""},
		{"throttled", &source.Error{Code: source.CodeFetchFailed, Err: &outbound.StatusError{Code: 429}}, ""},
		{"no answer", &source.Error{Code: source.CodeFetchFailed, Err: context.DeadlineExceeded}, ""},
	} {
		require.Equal(t, tt.want, permanent(tt.give), tt.name)
	}
}

// downSource is a provider that always fails in a way worth retrying.
type downSource struct{}

func (downSource) Fetch(context.Context, string) (trips.Imported, error) {
	return trips.Imported{}, errors.New("provider down")
}

// TestAnImportRetriedToTheEndSaysTheProviderFailed: a transient failure
// leaves the import pending for its retries; on the last attempt it fails,
// and get_trip says the provider kept failing.
func TestAnImportRetriedToTheEndSaysTheProviderFailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _ := storagetest.SQLiteFile(t, migrationsOf(t)...)
	u, _, err := accounts.NewStore(db, registry.New()).EnsureUser(ctx, "down@example.com")
	require.NoError(t, err)
	store := trips.NewStore(db)
	id := insertTrip(t, store, u.ID)
	for _, name := range trips.Computations {
		_, err := db.NewRaw("INSERT INTO computations (trip_id, name, generation, status, updated_at) VALUES (?, ?, 1, 'pending', ?)",
			id, name, time.Now().UTC()).Exec(ctx)
		require.NoError(t, err)
	}
	mod := trips.New(trips.Params{Store: store, Jobs: nopDispatcher{}, Progress: progress.NewLocal(), Source: downSource{},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})

	job := trips.Job{TripID: id, Name: trips.ComputeRoute, Generation: 1, Attempt: 1, MaxAttempts: MaxAttempts}
	require.Error(t, mod.Pipeline.Run(ctx, job))
	d, err := mod.Trips.Detail(ctx, id, time.Now())
	require.NoError(t, err)
	require.True(t, d.Partial, "retried: not settled yet")

	job.Attempt = MaxAttempts
	require.Error(t, mod.Pipeline.Run(ctx, job))
	d, err = mod.Trips.Detail(ctx, id, time.Now())
	require.NoError(t, err)
	require.False(t, d.Partial)
	require.Equal(t, trips.FailureProvider, d.Failure)
	require.Contains(t, d.Note, "try again later")
}

// nopDispatcher dispatches nothing: the test runs each job itself.
type nopDispatcher struct{}

func (nopDispatcher) Dispatch(context.Context, string, int64, ...string) error { return nil }
