package guards_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

type named struct {
	name string
	log  *[]string
}

func (n named) Name() string { return n.name }
func (n named) Check(ctx context.Context, c *registry.Call, next guards.Next) error {
	*n.log = append(*n.log, n.name)
	return next(ctx, c)
}

func all(log *[]string) []guards.Guard {
	var gs []guards.Guard
	// Given in reverse: where a guard is provided must never matter.
	for i := len(guards.Order) - 1; i >= 0; i-- {
		gs = append(gs, named{guards.Order[i], log})
	}
	return gs
}

func TestChainRunsInOrderWhateverTheGivenOrder(t *testing.T) {
	t.Parallel()
	var log []string
	ch, err := guards.NewChain(all(&log)...)
	require.NoError(t, err)
	require.Equal(t, guards.Order, ch.Names())
	c := &registry.Call{Op: everyGuard()}
	require.NoError(t, ch.Run(context.Background(), c))
	require.Equal(t, guards.Order, log)
	require.Equal(t, "done", c.Output)
}

// everyGuard is an operation declaring every guard.
func everyGuard() *registry.Operation {
	load := func(context.Context, *registry.Call) (registry.Record, error) { return nil, nil }
	return &registry.Operation{
		ID: "x.y", Scope: "x:write",
		HTTP:         registry.Patch("/x/{id}", 200),
		Owner:        registry.ByURIVariable("id", func(context.Context, string, string) (bool, error) { return true, nil }),
		RateLimit:    registry.PerUser(1, time.Second),
		Load:         load,
		Merge:        load,
		Validate:     registry.ValidateWith(func(registry.Record) []registry.Violation { return nil }),
		Lock:         registry.LockWhen("locked", func(registry.Record, time.Time) bool { return false }),
		Precondition: registry.RequireVersion,
		Confirm:      registry.ConfirmWith(func(context.Context, *registry.Call) (registry.Impact, error) { return registry.Impact{}, nil }),
		Idempotency:  registry.CreationReplayedBy(func(context.Context, *registry.Call, string) (any, error) { return nil, nil }),
		Handle:       func(context.Context, *registry.Call) (any, error) { return "done", nil },
	}
}

// TestChainSkipsWhatDoesNotApply: the chain asks guards.Applies, so a guard
// never runs for an operation that does not declare it.
func TestChainSkipsWhatDoesNotApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		op   func(op *registry.Operation)
		want []string
	}{
		{"a plain read", func(op *registry.Operation) {
			*op = registry.Operation{ID: "x.list", Scope: "x:read", HTTP: registry.Get("/x"), Handle: op.Handle}
		}, []string{guards.NameAuthenticate, guards.NameScope, guards.NameArguments}},
		{"a public read", func(op *registry.Operation) {
			*op = registry.Operation{ID: "x.public", Scope: registry.Public, HTTP: registry.Get("/s/{code}"), Handle: op.Handle}
		}, []string{guards.NameArguments}},
		{"a write without confirmation", func(op *registry.Operation) { op.Confirm = registry.NoConfirm },
			without(guards.Order, guards.NameConfirm)},
	}
	for _, tt := range tests {
		var log []string
		ch, err := guards.NewChain(all(&log)...)
		require.NoError(t, err)
		op := everyGuard()
		tt.op(op)
		c := &registry.Call{Op: op}
		require.NoError(t, ch.Run(context.Background(), c), tt.name)
		require.Equal(t, tt.want, log, tt.name)
		for _, g := range guards.Order {
			require.Equal(t, slices.Contains(tt.want, g), guards.Applies(g, op), "%s: %s", tt.name, g)
		}
	}
}

func without(names []string, drop string) []string {
	var out []string
	for _, n := range names {
		if n != drop {
			out = append(out, n)
		}
	}
	return out
}

func TestChainRefusesAMissingOrUnknownGuard(t *testing.T) {
	t.Parallel()
	var log []string
	gs := all(&log)
	_, err := guards.NewChain(gs[1:]...)
	require.ErrorContains(t, err, "missing: "+guards.Order[len(guards.Order)-1])
	_, err = guards.NewChain(append(gs, named{"audit", &log})...)
	require.ErrorContains(t, err, "unknown: audit")
	_, err = guards.NewChain(append(gs, gs[0])...)
	require.ErrorContains(t, err, "twice")
}
