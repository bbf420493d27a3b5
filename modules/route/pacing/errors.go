package pacing

// Error is a pacing outcome the caller reports as a validation_error carrying
// Code (pipeline.md §1.4).
type Error struct {
	Code   string // machine-readable, e.g. CodeMinStages
	Detail string // fixed text for the rider
}

// Error returns Detail, prefixed with the package name.
func (e *Error) Error() string { return "pacing: " + e.Detail }

// CodeMinStages is the validation_error code for a route that gives fewer
// than two stages.
const CodeMinStages = "MIN_STAGES"

// ErrMinStages comes back from Plan together with the stages when there are
// fewer than two: the trip is stored and stays a draft. Test with errors.Is.
var ErrMinStages = &Error{Code: CodeMinStages, Detail: "the route gives fewer than two stages"}
