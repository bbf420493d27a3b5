package operations

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"cairn.dev/cairn/registry"
)

type resourceMetadataKey struct{}

// WithResourceMetadata makes the bearer challenges of next's refusals name
// the Protected Resource Metadata (RFC 9728) at url(), read when a
// challenge is written (the server's own URL has its real port only once
// listening), so a request that is not refused does not build it. A client
// that gets a 401 finds there where to obtain a token.
func WithResourceMetadata(url func() string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), resourceMetadataKey{}, url)))
	})
}

// ResourceMetadata is the metadata URL of the WithResourceMetadata around
// ctx's request, or "".
func ResourceMetadata(ctx context.Context) string {
	if url, _ := ctx.Value(resourceMetadataKey{}).(func() string); url != nil {
		return url()
	}
	return ""
}

// BearerChallenge is the WWW-Authenticate value of a refusal (RFC 6750 §3,
// RFC 9728 §5.1): the realm, the resource metadata when known, and
//   - for a 401, error="invalid_token" when a token was sent (a client
//     without one is only told how to get one), and the scopes it needs
//     when scopes is not empty;
//   - for a 403, error="insufficient_scope" and the scopes the token
//     holds with the one the operation needs, which lets a client ask for
//     them (step-up) without losing any.
//
// Other kinds have no challenge ("").
func BearerChallenge(ctx context.Context, e *registry.Error, tokenSent bool, scopes ...registry.Scope) string {
	parts := []string{`realm="cairn"`}
	if u := ResourceMetadata(ctx); u != "" {
		parts = append(parts, `resource_metadata="`+u+`"`)
	}
	switch e.Kind {
	case registry.KindUnauthenticated:
		if tokenSent {
			parts = append(parts, `error="invalid_token"`)
		}
		if len(scopes) > 0 {
			parts = append(parts, `scope="`+registry.JoinScopes(scopes)+`"`)
		}
	case registry.KindForbidden:
		// The scopes held and the one missing: a client asks for them all
		// at once, so the step-up keeps what the token could already do.
		want := slices.Clone(e.Held)
		if !slices.Contains(want, e.Scope) {
			want = append(want, e.Scope)
		}
		slices.Sort(want)
		parts = append(parts, `error="insufficient_scope"`, `scope="`+registry.JoinScopes(want)+`"`)
	default:
		return ""
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// WriteChallenge writes err like WriteProblem, with a 401's challenge also
// naming the scopes the endpoint's operations need (RFC 6750 §3), so that a
// client asks for them up front.
func WriteChallenge(w http.ResponseWriter, r *http.Request, err error, scopes ...registry.Scope) {
	e := registry.AsError(err)
	if e.Kind != registry.KindUnauthenticated {
		WriteProblem(w, r, e)
		return
	}
	w.Header().Set("WWW-Authenticate", BearerChallenge(r.Context(), e, r.Header.Get("Authorization") != "", scopes...))
	writeProblem(w, r, e.Problem())
}
