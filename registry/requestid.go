package registry

import "context"

// HeaderRequestID carries a request's id: accepted from the client when it
// is well formed, generated otherwise, and echoed on the response.
const HeaderRequestID = "X-Request-Id"

// MaxRequestID bounds an accepted request id.
const MaxRequestID = 128

// ValidRequestID reports whether a client's request id can be used as is:
// 1 to MaxRequestID printable ASCII characters without space, so it is safe
// in a log line, a header and a problem body.
func ValidRequestID(id string) bool {
	if len(id) == 0 || len(id) > MaxRequestID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

type requestIDKey struct{}

// WithRequestID returns ctx carrying the request's id, which the process
// logger adds to every line logged with that context.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID is the id ctx carries, "" when none.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
