package guards

import "cairn.dev/cairn/registry"

// The guard names. They are what `cairn guards` prints and what the coverage
// walk reports.
const (
	NameAuthenticate = "authenticate"
	NameScope        = "scope"
	NameRateLimit    = "rate_limit"
	NameOwner        = "owner"
	NameArguments    = "arguments"
	NameRead         = "read"
	NameMerge        = "merge"
	NameValidate     = "validate"
	NameLock         = "lock"
	NamePrecondition = "precondition"
	NameConfirm      = "confirm"
	NameIdempotency  = "idempotency"
)

// Order is the guard chain, outermost first. It is the one place the order
// is stated; where a guard is provided never matters.
var Order = []string{
	NameAuthenticate, // no principal: 401, before anything else can leak
	NameScope,        // scope missing from the token: 403
	NameRateLimit,    // after scope, so an unauthorised caller cannot burn someone's quota: 429
	NameOwner,        // the URI variable is judged before any read: unknown and foreign are the same 404
	NameArguments,    // an unpublished argument is refused by name, never dropped: 422
	NameRead,         // load the stored record as Previous, untouched from here on
	NameLock,         // judge Previous, so sending a future date cannot unlock a started trip: 423; before the merge, since a locked record refuses every change whatever its values (the truer answer than a 422), and no merge work is spent on it
	NameMerge,        // apply the input onto a copy of Previous
	NameValidate,     // judge the merged record, not the stored one: 422
	NamePrecondition, // expected version against Previous: 428 missing, 412 stale
	NameConfirm,      // innermost short circuit: never ask to confirm what lock or version would refuse
	NameIdempotency,  // creations: same key and digest replays; another digest is 409
}

// Applies reports whether the guard named name does anything for op, by its
// declaration alone. It is the one answer to that question: the chain skips
// a guard that does not apply, `cairn guards` prints it, and the
// conformance kit drives a refusal for each guard that does. Arguments
// apply to every operation, authentication and scope to every one that is
// not public, the others only where declared.
func Applies(name string, op *registry.Operation) bool {
	switch name {
	case NameAuthenticate, NameScope:
		return op.Scope != registry.Public
	case NameArguments:
		return true
	case NameRateLimit:
		return op.RateLimit.Limited()
	case NameOwner:
		return op.Owner.ByVariable()
	case NameRead:
		return op.Load != nil
	case NameMerge:
		return op.Merge != nil
	case NameValidate:
		return op.Validate.Validates()
	case NameLock:
		return op.Lock.Applies()
	case NamePrecondition:
		return op.Precondition == registry.RequireVersion
	case NameConfirm:
		return op.Confirm.Asks()
	case NameIdempotency:
		return op.Idempotency.Creation()
	}
	return false
}
