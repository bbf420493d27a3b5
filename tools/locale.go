package tools

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/registry"
)

// speak negotiates the call's language from the Accept-Language header of
// the HTTP request behind it.
func (f *Face) speak(req *mcp.CallToolRequest, c *registry.Call) {
	header := ""
	if req.Extra != nil && req.Extra.Header != nil {
		header = req.Extra.Header.Get("Accept-Language")
	}
	c.Locale = f.locales.Negotiate(header)
}

// SpeakLanguage names the language of the /mcp answers: a tool call's
// (Mcp-Method: tools/call) is the one negotiated from Accept-Language, as
// the call's results and refusals are written in it; any other method
// answers the default (tool descriptions are not translated). A request
// that does not name its method is not told.
func SpeakLanguage(reg *registry.Registry, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch m := r.Header.Get("Mcp-Method"); {
		case m == "tools/call":
			w.Header().Set(registry.HeaderContentLanguage, reg.Locales().Negotiate(r.Header.Get("Accept-Language")))
			w.Header().Add("Vary", "Accept-Language")
		case m != "":
			w.Header().Set(registry.HeaderContentLanguage, reg.Locales().Default())
		}
		next.ServeHTTP(w, r)
	})
}
