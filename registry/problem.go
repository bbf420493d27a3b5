package registry

import "net/http"

// ProblemTypeBase prefixes every problem type URI; the slug after it is the
// Kind's (or, for a refusal with a Code, the code's) stable name.
const ProblemTypeBase = "https://cairn.dev/problems/"

// Problem is an RFC 9457 problem: the body of an HTTP error and the
// structured content of an MCP tool error alike, so both faces say the same.
type Problem struct {
	Type       string      `json:"type" doc:"Stable URI naming the kind of problem."`
	Title      string      `json:"title" doc:"Short summary of the kind of problem."`
	Status     int         `json:"status" doc:"The HTTP status this problem answers with."`
	Detail     string      `json:"detail,omitempty" doc:"What happened and what to do next."`
	Code       string      `json:"code,omitempty" doc:"Finer stable code within the type."`
	Scope      string      `json:"scope,omitempty" doc:"The scope missing from the token."`
	RetryAfter int         `json:"retryAfter,omitempty" doc:"Seconds to wait before trying again."`
	Violations []Violation `json:"violations,omitempty" doc:"Every field refused, and why."`
	RequestID  string      `json:"requestId,omitempty" doc:"The request's id (the X-Request-Id header), to quote when reporting a problem."`
}

// Status is the HTTP status of a kind.
func (k Kind) Status() int {
	switch k {
	case KindMalformed:
		return http.StatusBadRequest
	case KindUnauthenticated:
		return http.StatusUnauthorized
	case KindForbidden:
		return http.StatusForbidden
	case KindNotFound:
		return http.StatusNotFound
	case KindConflict:
		return http.StatusConflict
	case KindPreconditionFailed:
		return http.StatusPreconditionFailed
	case KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case KindInvalid:
		return http.StatusUnprocessableEntity
	case KindLocked:
		return http.StatusLocked
	case KindPreconditionRequired:
		return http.StatusPreconditionRequired
	case KindRateLimited:
		return http.StatusTooManyRequests
	case KindUpstream:
		return http.StatusBadGateway
	case KindUnavailable:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// Problem renders the error as a problem, the one mapping both faces use.
func (e *Error) Problem() Problem {
	status := e.Kind.Status()
	return Problem{
		Type:       ProblemTypeBase + e.Kind.String(),
		Title:      http.StatusText(status),
		Status:     status,
		Detail:     e.Detail,
		Code:       e.Code,
		Scope:      string(e.Scope),
		RetryAfter: e.RetryAfter,
		Violations: e.Violations,
	}
}
