// Package scopes names the trip planner's permissions, so the modules that
// use one spell it alike. The trips module declares them in the registry
// (registry.DeclareScope); the registry is the vocabulary a token is
// checked against.
package scopes

import "cairn.dev/cairn/registry"

// The scopes a token may carry.
const (
	TripsRead  registry.Scope = "trips:read"  // the four read tools and their HTTP twins
	TripsWrite registry.Scope = "trips:write" // every write
)
