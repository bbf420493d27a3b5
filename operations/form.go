package operations

import (
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"cairn.dev/cairn/registry"
)

// HTML forms: a page's form posts application/x-www-form-urlencoded, and
// its answer is usually a redirect (303 See Other) to where the browser
// goes next. A route takes a form only when declared WithForm; any other
// refuses the body (415) as it refuses every body that is not JSON.

// FormMediaType is the media type of an HTML form's body.
const FormMediaType = "application/x-www-form-urlencoded"

// formMediaType reports whether a Content-Type is an HTML form's.
func formMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == FormMediaType
}

// takesForm reports whether the call is a form posted to a route that
// takes one.
func takesForm(hc huma.Context, op *registry.Operation) bool {
	return op.HTTP.TakesForm() && op.HTTP.Method != http.MethodGet && formMediaType(hc.Header("Content-Type"))
}

// readForm maps a form's fields onto the call's arguments, typed by the
// published schema as query parameters are, under the JSON body's size
// limit; a field sent twice that is not a list is refused by name. It
// returns false when it has answered the call itself (a body over the
// limit).
func (f *Face) readForm(hc huma.Context, c *registry.Call) bool {
	if n, err := strconv.ParseInt(hc.Header("Content-Length"), 10, 64); err == nil && n > f.maxBody {
		f.writeError(hc, c, TooLarge(f.maxBody))
		return false
	}
	body, err := io.ReadAll(io.LimitReader(hc.BodyReader(), f.maxBody+1))
	switch {
	case err != nil:
		c.Unreadable = "the form could not be read"
		return true
	case int64(len(body)) > f.maxBody:
		f.writeError(hc, c, TooLarge(f.maxBody))
		return false
	}
	values, err := url.ParseQuery(string(body))
	if err != nil {
		c.Unreadable = "the body is not a well-formed form (" + FormMediaType + ")"
		return true
	}
	c.Args = f.formArgs(c.Op, values)
	c.Refused = append(c.Refused, f.repeatedFields(c.Op, values)...)
	slices.SortFunc(c.Refused, func(a, b registry.Violation) int { return strings.Compare(a.Field, b.Field) })
	return true
}

// writeRedirect answers an output with an address on a route declared
// with a redirect status (303 after a form): the Location alone, never
// cached, no body. It returns false for any other answer.
func writeRedirect(hc huma.Context, c *registry.Call, out any) bool {
	l, ok := out.(registry.Located)
	status := c.Op.HTTP.Status
	if !ok || status < 300 || status > 399 {
		return false
	}
	if cs, ok := out.(registry.CookieSetter); ok {
		for _, ck := range cs.SetCookies() {
			hc.AppendHeader("Set-Cookie", ck.String())
		}
	}
	hc.SetHeader("Location", l.ResourceLocation())
	hc.SetHeader("Cache-Control", "no-store")
	hc.SetStatus(status)
	return true
}

// describeForm documents a form route: the form's media type beside
// JSON, with the same fields, and a redirect answered with its Location
// alone.
func describeForm(hop *huma.Operation, op *registry.Operation, success *huma.Response) {
	if op.HTTP.TakesForm() && hop.RequestBody != nil {
		if js, ok := hop.RequestBody.Content["application/json"]; ok {
			hop.RequestBody.Content[FormMediaType] = &huma.MediaType{Schema: js.Schema}
		}
	}
	if redirects(op) {
		success.Content = nil
		success.Headers["Location"] = &huma.Param{Description: "Where the browser goes next.", Schema: &huma.Schema{Type: "string"}}
	}
}

// redirects reports whether the operation answers a redirect: a 3xx route
// whose output has an address.
func redirects(op *registry.Operation) bool {
	return op.HTTP.Status >= 300 && op.HTTP.Status <= 399 && op.OutputType.Implements(reflect.TypeFor[registry.Located]())
}
