// Package trips serves trips: their creation from a route address, their
// settings, listing, reading and deletion. It declares its operations once;
// the faces and the guard chain come from the declarations.
package trips

import (
	"go.uber.org/fx"

	"cairn/registry"
)

// Module provides the trip store and the trip declarations.
var Module = fx.Module("trips", fx.Provide(NewStore, New))

// Params are what the module needs.
type Params struct {
	fx.In
	Store *Store
}

// Result is what the module adds to the application.
type Result struct {
	fx.Out
	Trips   *Trips
	Declare registry.Declarer `group:"declarations"`
}

// Trips holds the handlers. New works without fx as well.
type Trips struct {
	store *Store
}

// New builds the module.
func New(p Params) Result {
	t := &Trips{store: p.Store}
	return Result{Trips: t, Declare: t.Declare}
}
