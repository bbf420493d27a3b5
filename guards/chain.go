// Package guards holds what is checked and in which order. Each guard is in
// a file of its own and judges only the transport-neutral registry.Call; the
// order is stated once, in order.go, and both faces build the same Chain.
package guards

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

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
	guards   []Guard
	observer Observer
	seal     InputSeal // input.go
}

// Observer is told what the chain decided, for metrics. Its methods must be
// cheap and cannot fail.
type Observer interface {
	// Refused is told once per refused call, naming the guard whose own
	// refusal it is (not one it passed on from further in).
	Refused(c *registry.Call, guard string, e *registry.Error)
	// Ran is told once per call, when it is judged and handled: its error
	// (nil on success) and how long it took.
	Ran(c *registry.Call, err error, took time.Duration)
}

// WithObserver returns the same chain telling o what it decides.
func (ch *Chain) WithObserver(o Observer) *Chain {
	out := *ch
	out.observer = o
	return &out
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
	start := time.Now()
	err := ch.step(0)(ctx, c)
	if ch.observer != nil {
		ch.observer.Ran(c, err, time.Since(start))
	}
	return err
}

// step continues at the first guard from i on that applies to the call's
// operation: a guard never judges whether it applies itself.
func (ch *Chain) step(i int) Next {
	return func(ctx context.Context, c *registry.Call) error {
		for j := i; j < len(ch.guards); j++ {
			if g := ch.guards[j]; Applies(g.Name(), c.Op) {
				return ch.check(ctx, c, g, j)
			}
		}
		return ch.handle(ctx, c) // input.go
	}
}

// check runs guard g (at index j) and tells the observer when the refusal
// is g's own: what g passes on from further in was told where it arose.
func (ch *Chain) check(ctx context.Context, c *registry.Call, g Guard, j int) error {
	if ch.observer == nil {
		return g.Check(ctx, c, ch.step(j+1))
	}
	var inner error
	err := g.Check(ctx, c, func(ctx context.Context, c *registry.Call) error {
		inner = ch.step(j+1)(ctx, c)
		return inner
	})
	if err != nil && (inner == nil || !errors.Is(err, inner)) {
		ch.observer.Refused(c, g.Name(), registry.AsError(err))
	}
	return err
}

// Recheck judges again whether the call's credential still holds, for a
// call whose answer is still being sent (an event stream): this chain's own
// authenticate and scope guards run on a copy of the call, so a revoked,
// expired or narrowed token is refused as a new call would be. It answers
// that refusal, or nil while the credential holds.
func (ch *Chain) Recheck(ctx context.Context, c *registry.Call) error {
	probe := *c
	probe.Principal = nil
	var gs []Guard
	for _, g := range ch.guards {
		if (g.Name() == NameAuthenticate || g.Name() == NameScope) && Applies(g.Name(), c.Op) {
			gs = append(gs, g)
		}
	}
	var run Next
	run = func(ctx context.Context, c *registry.Call) error {
		if len(gs) == 0 {
			return nil
		}
		g := gs[0]
		gs = gs[1:]
		return g.Check(ctx, c, run)
	}
	return run(ctx, &probe)
}
