package registry

import "net/http"

// Infrastructure is an HTTP route a module serves outside the registry:
// public documents and endpoints whose shape a standard fixes rather than
// the registry (OAuth's well-known metadata, its token endpoint, the
// browser's consent pages). It is never an MCP tool and runs no guard
// chain; the handler does its own checks. Modules contribute them in the
// fx group "infrastructure".
type Infrastructure struct {
	Pattern string // a net/http ServeMux pattern, e.g. "POST /oauth/token"
	Handler http.Handler
}
