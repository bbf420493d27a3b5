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
	Violations []Violation `json:"violations,omitempty" doc:"The fields refused, and why: at most 50, in the order found."`
	// MoreViolations counts the fields refused beyond those listed, so an
	// answer stays small whatever a request sends (90,000 unknown keys).
	MoreViolations int    `json:"moreViolations,omitempty" doc:"How many more fields were refused than violations lists; correct those and send again to read the rest."`
	RequestID      string `json:"requestId,omitempty" doc:"The request's id (the X-Request-Id header), to quote when reporting a problem."`
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

// MaxViolations is how many violations a problem lists; the others are
// counted in MoreViolations.
const MaxViolations = 50

// maxReason bounds a violation's reason, in runes: reasons are the
// server's words, with at most MaxQuote runes of a caller's value.
const maxReason = 300

// Problem renders the error as a problem, the one mapping both faces use.
// Its violations are bounded: at most MaxViolations, each field and
// reason clipped, so no request makes a refusal larger than about 20 KB.
func (e *Error) Problem() Problem {
	status := e.Kind.Status()
	vs, more := e.Violations, 0
	if len(vs) > MaxViolations {
		vs, more = vs[:MaxViolations], len(vs)-MaxViolations
	}
	copied := false
	for i, v := range vs {
		if f, r := Clip(v.Field), clipTo(v.Reason, maxReason); f != v.Field || r != v.Reason {
			if !copied { // never change the error's own
				vs, copied = append([]Violation(nil), vs...), true
			}
			vs[i] = Violation{Field: f, Reason: r}
		}
	}
	return Problem{
		Type:           ProblemTypeBase + e.Kind.String(),
		Title:          http.StatusText(status),
		Status:         status,
		Detail:         e.Detail,
		Code:           e.Code,
		Scope:          string(e.Scope),
		RetryAfter:     e.RetryAfter,
		Violations:     vs,
		MoreViolations: more,
	}
}

// clipTo cuts s at n runes.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
