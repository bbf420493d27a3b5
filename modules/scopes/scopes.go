// Package scopes is the product's vocabulary of permissions, shared by every
// feature module and by the token command.
package scopes

import "cairn/registry"

// The scopes a token may carry.
const (
	TripsRead  registry.Scope = "trips:read"  // the four read tools and their HTTP twins
	TripsWrite registry.Scope = "trips:write" // every write
)

// All lists the known scopes, for validating what a token is created with.
var All = []registry.Scope{TripsRead, TripsWrite}

// Known reports whether s is a scope of the product.
func Known(s string) bool {
	for _, k := range All {
		if string(k) == s {
			return true
		}
	}
	return false
}
