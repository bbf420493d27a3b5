// Package guards holds what is checked and in which order. Each guard is in
// a file of its own and judges only the transport-neutral registry.Call; the
// order is stated once, in order.go, and both faces build the same Chain.
package guards

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"cairn.dev/cairn/registry"
)

// Next continues the chain.
type Next func(ctx context.Context, c *registry.Call) error

// Guard checks one thing and either refuses or calls next.
type Guard interface {
	Name() string
	Check(ctx context.Context, c *registry.Call, next Next) error
}

// Chain is the ordered list of guards ending in the operation's handler.
type Chain struct {
	guards []Guard
}

// NewChain sorts the given guards by Order. It fails when a guard of Order is
// missing or an unknown one is given, so nothing can be left out by accident.
func NewChain(gs ...Guard) (*Chain, error) {
	rank := map[string]int{}
	for i, n := range Order {
		rank[n] = i
	}
	seen := map[string]bool{}
	var unknown []string
	for _, g := range gs {
		if _, ok := rank[g.Name()]; !ok {
			unknown = append(unknown, g.Name())
		}
		if seen[g.Name()] {
			return nil, fmt.Errorf("guards: %s given twice", g.Name())
		}
		seen[g.Name()] = true
	}
	var missing []string
	for _, n := range Order {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	if len(unknown) > 0 || len(missing) > 0 {
		return nil, fmt.Errorf("guards: chain does not match Order (missing: %s; unknown: %s)",
			strings.Join(missing, ", "), strings.Join(unknown, ", "))
	}
	sorted := append([]Guard(nil), gs...)
	sort.Slice(sorted, func(i, j int) bool { return rank[sorted[i].Name()] < rank[sorted[j].Name()] })
	return &Chain{guards: sorted}, nil
}

// Names lists the guards in the order they run.
func (ch *Chain) Names() []string {
	out := make([]string, len(ch.guards))
	for i, g := range ch.guards {
		out[i] = g.Name()
	}
	return out
}

// Run judges c through every guard and, when none refuses, calls the
// operation's handler. The answer is left in c.Output or c.Confirmation.
func (ch *Chain) Run(ctx context.Context, c *registry.Call) error {
	return ch.step(0)(ctx, c)
}

// step continues at the first guard from i on that applies to the call's
// operation: a guard never judges whether it applies itself.
func (ch *Chain) step(i int) Next {
	return func(ctx context.Context, c *registry.Call) error {
		for ; i < len(ch.guards); i++ {
			if g := ch.guards[i]; Applies(g.Name(), c.Op) {
				return g.Check(ctx, c, ch.step(i+1))
			}
		}
		return handle(ctx, c)
	}
}

// handle is the end of every chain: the module's own code.
func handle(ctx context.Context, c *registry.Call) error {
	out, err := c.Op.Handle(ctx, c)
	if err != nil {
		return err
	}
	c.Output = out
	return nil
}
