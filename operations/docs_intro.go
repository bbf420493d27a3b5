package operations

import (
	"net/http"
	"slices"
	"strings"

	"cairn.dev/cairn/registry"
)

// GettingStartedTitle heads the opening of the API reference.
const GettingStartedTitle = "## Getting started"

// introduce opens the document's description (the first thing /docs
// shows) with a getting-started text, before the product's own words.
func (f *Face) introduce(ops []*registry.Operation) {
	info := f.api.OpenAPI().Info
	if info == nil || strings.Contains(info.Description, GettingStartedTitle) {
		return
	}
	intro := GettingStarted(ops)
	if info.Description != "" {
		intro = info.Description + "\n\n" + intro
	}
	info.Description = intro
}

// GettingStarted writes the conventions a client needs before its first
// write, each shown on an operation of this API: the token, the
// Idempotency-Key of a creation, If-Match on a change, confirmation, and
// the event stream with its ticket. A convention no operation uses is left
// out.
func GettingStarted(ops []*registry.Operation) string {
	ops = slices.Clone(ops)
	slices.SortFunc(ops, func(a, b *registry.Operation) int {
		// The shortest paths show a convention most plainly.
		if d := len(a.HTTP.Path) - len(b.HTTP.Path); d != 0 {
			return d
		}
		return strings.Compare(a.ID, b.ID)
	})
	first := func(ok func(*registry.Operation) bool) *registry.Operation {
		for _, op := range ops {
			if op.Scope != registry.Public && ok(op) {
				return op
			}
		}
		return nil
	}
	route := func(op *registry.Operation) string { return "`" + op.HTTP.Method + " " + op.HTTP.Path + "`" }
	var b strings.Builder
	b.WriteString(GettingStartedTitle + "\n\n")
	b.WriteString("1. **A token.** Every operation but the public ones needs `Authorization: Bearer <token>`; " +
		"its scopes decide what it may call (401 without a valid one, 403 for a missing scope, with a " +
		"`WWW-Authenticate` challenge naming it). Refusals are `application/problem+json` (RFC 9457): " +
		"`type` is one of a closed list, `code` is finer, `violations` names every field refused.\n")
	if op := first(func(op *registry.Operation) bool {
		return op.Idempotency.Creation() && op.HTTP.Method == http.MethodPost && len(op.HTTP.Files) == 0
	}); op != nil {
		b.WriteString("2. **Creating: `Idempotency-Key`.** A creation such as " + route(op) + " needs one opaque key " +
			"per intent (16 to 255 characters), sent unchanged on every retry: a retry answers the first " +
			"result with `Idempotent-Replayed: true` instead of creating twice; the key with another body is 409.\n")
	}
	if op := first(func(op *registry.Operation) bool { return op.Precondition == registry.RequireVersion }); op != nil {
		b.WriteString("3. **Changing: `If-Match`.** Read the resource and keep its `ETag` (the structural version); " +
			"send it back as `If-Match` on a change such as " + route(op) + ". A stale version answers 412 (read " +
			"again, then decide), a missing one 428; `If-Match: *` takes whatever version is current. " +
			"A read's ETag is its version, a dash and a hash of the answer: `If-None-Match` with the one you hold " +
			"answers 304 only while the answer is unchanged, and `If-Match` compares the version.\n")
	}
	if op := first(func(op *registry.Operation) bool { return op.Confirm.Asks() }); op != nil {
		b.WriteString("4. **Confirmation.** A call that would lose something, such as " + route(op) + ", first answers " +
			"409 `" + ConfirmationType + "` with the `impact` (what it does, what is lost) and a " +
			"`Confirmation-Token` header; nothing is written. Repeat the same request, unchanged, with that " +
			"header to act. A token is single-use, short-lived, and only good for the same arguments.\n")
	}
	if op := first(streams); op != nil {
		b.WriteString("5. **Following work: the event stream.** Work that continues after the answer (202) can be " +
			"followed on " + route(op) + " as server-sent events, each with an `id:`; reconnect with " +
			"`Last-Event-ID` to resume after the last one received. The operation's description lists every event.")
		if t := first(func(t *registry.Operation) bool {
			return t.HTTP.Method == http.MethodPost && strings.HasPrefix(t.HTTP.Path, op.HTTP.Path+"/")
		}); t != nil {
			b.WriteString(" A browser's `EventSource` cannot send `Authorization`: ask " + route(t) + " for a " +
				"single-use ticket that opens that stream alone, within a minute, and open `" + op.HTTP.Path +
				"?" + TicketParam + "=…`.")
		}
		b.WriteString("\n")
	}
	return b.String()
}
