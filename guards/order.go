package guards

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
	NameMerge,        // apply the input onto a copy of Previous
	NameValidate,     // judge the merged record, not the stored one: 422
	NameLock,         // judge Previous, so sending a future date cannot unlock a started trip: 423
	NamePrecondition, // expected version against Previous: 428 missing, 412 stale
	NameConfirm,      // innermost short circuit: never ask to confirm what lock or version would refuse
	NameIdempotency,  // creations: same key and digest replays; another digest is 409
}
