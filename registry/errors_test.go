package registry_test

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
)

type sqlState string

func (s sqlState) Error() string    { return "sql state " + string(s) }
func (s sqlState) SQLState() string { return string(s) }

// TestAnUnreachableDependencyIsUnavailable: the errors of a database that
// cannot be reached map to 503 with a wait, wrapped or wrapped as
// internal; the others stay internal.
func TestAnUnreachableDependencyIsUnavailable(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name string
		give error
		want registry.Kind
	}{
		{"a refused dial", fmt.Errorf("failed to connect: %w", refused), registry.KindUnavailable},
		{"a reset connection", fmt.Errorf("read: %w", syscall.ECONNRESET), registry.KindUnavailable},
		{"a broken connection", driver.ErrBadConn, registry.KindUnavailable},
		{"an answer cut off", io.ErrUnexpectedEOF, registry.KindUnavailable},
		{"a connection exception", sqlState("08006"), registry.KindUnavailable},
		{"a server shutting down", sqlState("57P01"), registry.KindUnavailable},
		{"a server starting", sqlState("57P03"), registry.KindUnavailable},
		{"a refused dial wrapped as internal", registry.Internal(refused), registry.KindUnavailable},
		{"a unique violation", sqlState("23505"), registry.KindInternal},
		{"any other error", errors.New("boom"), registry.KindInternal},
		{"a refusal of the domain", registry.Fail(registry.KindConflict, "taken"), registry.KindConflict},
	}
	for _, tt := range tests {
		e := registry.AsError(tt.give)
		require.Equal(t, tt.want, e.Kind, tt.name)
		if tt.want == registry.KindUnavailable {
			require.Positive(t, e.RetryAfter, "%s: says when to come back", tt.name)
		}
	}
}
