package guards_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn/guards"
	"cairn/registry"
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
	op := &registry.Operation{ID: "x.y", Handle: func(context.Context, *registry.Call) (any, error) { return "done", nil }}
	c := &registry.Call{Op: op}
	require.NoError(t, ch.Run(context.Background(), c))
	require.Equal(t, guards.Order, log)
	require.Equal(t, "done", c.Output)
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
