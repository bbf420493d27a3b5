package registry

// Followed is implemented by the output of an operation declared
// Dispatches: it names the read that reports the background work the call
// started, so a face can follow that work until it settles (MCP: as a task
// of the tasks extension). A zero FollowUp says nothing was left running.
type Followed interface {
	FollowUp() FollowUp
}

// FollowUp names a read operation, by id, and the URI variables to call it
// with. The read runs through the whole guard chain as the caller, like
// any call.
type FollowUp struct {
	Op   string
	Vars map[string]string
}

// Zero reports whether nothing is to be followed.
func (f FollowUp) Zero() bool { return f.Op == "" }

// Settling is implemented by the output of the read a FollowUp names: how
// far the background work got, and whether it settled.
type Settling interface {
	Settlement() Settlement
}

// Settlement is the state of background work, as its read reports it.
type Settlement struct {
	Settled bool   // nothing of the work is still pending or running
	Done    int    // units of work settled, of Total
	Total   int    // units of work scheduled; 0 when unknown
	Message string // how far the work got, in words
	// Failure is the failure's words when the work ran and failed; the
	// read's output is then the result, marked as an error.
	Failure string
	// Broken is the words of a failure of the machinery itself (the work
	// could not run, or crashed): no result, an error in its place.
	Broken string
}
