package registry

import (
	"net/http"
	"reflect"
	"strings"
)

// HeaderClientAddress carries, on a request the server forwards to a
// handler outside the registry's faces (the MCP endpoint), the caller's
// address as the server resolved it. The server sets it itself and drops
// any value the client sent, so it cannot be forged.
const HeaderClientAddress = "Cairn-Client-Address"

// StatusChooser is implemented by outputs whose HTTP status depends on what
// the call found (201 for a new record, 200 for one that existed): the
// face answers ResponseStatus when it is non-zero, the route's status
// otherwise. The body is the same either way.
type StatusChooser interface{ ResponseStatus() int }

// publishes reports whether the struct type t has a JSON field named name.
func publishes(t reflect.Type, name string) bool {
	if t == nil || t.Kind() != reflect.Struct {
		return false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && publishes(f.Type, name) {
			return true
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name || (tag == "" && f.IsExported() && f.Name == name) {
			return true
		}
	}
	return false
}

// CookieSetter is implemented by outputs that set or clear cookies on the
// HTTP face (signing out clears the session's). The MCP face has no
// cookies and ignores it.
type CookieSetter interface{ SetCookies() []*http.Cookie }
