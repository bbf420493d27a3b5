package operations

import (
	"mime"
	"net/http"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/danielgtaylor/huma/v2"

	"cairn.dev/cairn/registry"
)

// The parts of the OpenAPI document that say what the server sends beyond
// one JSON body: the problem types, the conflicts of each operation, file
// media types, event streams and the document's tags.

// ProblemTypes lists every problem type this face answers with: one per
// kind, and those the face itself writes. The Problem schema publishes
// them as an enum, so a client can switch on them.
func ProblemTypes() []string {
	var out []string
	for _, k := range registry.Kinds() {
		out = append(out, registry.ProblemTypeBase+k.String())
	}
	out = append(out, ConfirmationType, UnsupportedMediaType, OriginNotAllowedType)
	slices.Sort(out)
	return slices.Compact(out)
}

// operationID is the operation's id in lower camel case ("trips.update_settings"
// is "tripsUpdateSettings"), the form client generators turn into method
// names unchanged.
func operationID(id string) string {
	var b strings.Builder
	upper := false
	for _, r := range id {
		switch {
		case r == '.' || r == '_' || r == '-':
			upper = b.Len() > 0
		case upper:
			b.WriteRune(unicode.ToUpper(r))
			upper = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// tag adds the document-level entry of a tag the first time an operation
// uses it, so every tag an operation names is declared with the document.
func (f *Face) tag(name string) string {
	doc := f.api.OpenAPI()
	for _, t := range doc.Tags {
		if t.Name == name {
			return name
		}
	}
	doc.Tags = append(doc.Tags, &huma.Tag{Name: name, Description: "The " + name + " operations (ids " + name + ".*)."})
	slices.SortFunc(doc.Tags, func(a, b *huma.Tag) int { return strings.Compare(a.Name, b.Name) })
	return name
}

// problemSchema is the reference to the Problem schema, whose type it
// publishes as an enum.
func (f *Face) problemSchema() *huma.Schema {
	ref := f.schemas.Of(problemType)
	f.enumerateTypes(ref)
	return ref
}

// enumerateTypes sets the enum of the type property of the schema ref
// names, once.
func (f *Face) enumerateTypes(ref *huma.Schema) {
	sc := f.schemas.doc.SchemaFromRef(ref.Ref)
	if sc == nil || sc.Properties["type"] == nil || len(sc.Properties["type"].Enum) > 0 {
		return
	}
	p := *sc.Properties["type"] // the property's schema may be shared: change a copy
	for _, t := range ProblemTypes() {
		p.Enum = append(p.Enum, t)
	}
	sc.Properties["type"] = &p
}

// conflicts documents every 409 an operation can answer, each by what
// causes it and its code: an Idempotency-Key reused, the refusals its
// handler declares, and a confirmation asked for or a token refused. One
// schema covers them all: the confirmation request when the operation
// asks for one, or any other problem.
func (f *Face) conflicts(hop *huma.Operation, op *registry.Operation) {
	var why []string
	if op.Idempotency.Creation() {
		why = append(why, "`idempotency_key_reused`: the Idempotency-Key was used with another body.")
	}
	for _, r := range op.Refusals {
		if r.Kind == registry.KindConflict {
			why = append(why, "`"+r.Code+"`: "+r.Detail)
		}
	}
	var schema *huma.Schema
	headers := map[string]*huma.Param{}
	if op.Confirm.Asks() {
		asked := "Type " + ConfirmationType + ": confirmation required; nothing was written. Repeat the request unchanged with the Confirmation-Token header."
		if op.Confirm.OnlyWhenLoses() {
			asked = "Type " + ConfirmationType + ": confirmation required, only when the change loses something (the impact lists it); nothing was written. Repeat the request unchanged with the Confirmation-Token header."
		}
		why = append(why,
			asked,
			"`confirmation_refused`: the Confirmation-Token is unknown, used, expired, or for other arguments; repeat without it for a new one.")
		confirmation := f.schemas.Of(confirmationType)
		f.enumerateTypes(confirmation)
		schema = &huma.Schema{OneOf: []*huma.Schema{confirmation, f.problemSchema()}}
		headers[HeaderConfirmationToken] = &huma.Param{Description: "The token to send back, with a confirmation request.", Schema: &huma.Schema{Type: "string"}}
	}
	if len(why) == 0 {
		return
	}
	if schema == nil {
		schema = f.problemSchema()
	}
	hop.Responses[strconv.Itoa(http.StatusConflict)] = &huma.Response{
		Description: "Conflict (type " + registry.ProblemTypeBase + registry.KindConflict.String() + " unless said otherwise):\n\n- " + strings.Join(why, "\n- "),
		Headers:     headers,
		Content:     map[string]*huma.MediaType{"application/problem+json": {Schema: schema}},
	}
}

// fileContent is the content of a file answer: the media type of the
// route's extension (application/gpx+xml for .gpx), as registered with the
// standard library's table, or application/octet-stream.
func fileContent(op *registry.Operation) map[string]*huma.MediaType {
	mt := "application/octet-stream"
	if ext := path.Ext(op.HTTP.Path); ext != "" && !strings.ContainsAny(ext, "{}/") {
		if t := mime.TypeByExtension(ext); t != "" {
			mt, _, _ = mime.ParseMediaType(t)
		}
	}
	return map[string]*huma.MediaType{mt: {Schema: &huma.Schema{Type: "string", Description: "The file (" + mt + "), as an attachment."}}}
}

// TicketScheme names the security scheme of stream tickets.
const TicketScheme = "streamTicket"

// describeStream documents an event stream: its events, how it resumes
// and ends, and how a browser opens it.
func (f *Face) describeStream(hop *huma.Operation, op *registry.Operation, success *huma.Response) {
	var b strings.Builder
	b.WriteString("Server-sent events. The stream opens with `retry: " + strconv.FormatInt(StreamRetry.Milliseconds(), 10) +
		"`; each event has `event:` (its type), `data:` (its JSON) and, when the stream can resume after it, `id:`. " +
		"Send the last id back in Last-Event-ID to resume after it. Comments (`:`) keep the connection alive. " +
		"A stream whose credential stops holding ends with a `" + ProblemEvent + "` event (the problem a new call would get).")
	if et, ok := reflect.New(op.OutputType).Elem().Interface().(registry.EventTypes); ok {
		b.WriteString("\n\nEvents:\n")
		for _, e := range et.EventTypes() {
			b.WriteString("\n- `" + e.Name + "`: " + e.Doc)
		}
	}
	success.Content = map[string]*huma.MediaType{"text/event-stream": {Schema: &huma.Schema{Type: "string", Description: b.String()}}}
	hop.Parameters = append(hop.Parameters, &huma.Param{Name: HeaderLastEventID, In: "header", Schema: &huma.Schema{Type: "string"},
		Description: "The id of the last event received: the stream resumes after it when it can, and otherwise starts afresh."})
	if op.Scope != registry.Public {
		// A browser's EventSource cannot send Authorization: a ticket in
		// the query stands in for the bearer token, for this stream only.
		comps := f.api.OpenAPI().Components
		if comps.SecuritySchemes == nil {
			comps.SecuritySchemes = map[string]*huma.SecurityScheme{}
		}
		comps.SecuritySchemes[TicketScheme] = &huma.SecurityScheme{Type: "apiKey", In: "query", Name: TicketParam,
			Description: "A stream ticket (cairn_st_…), for a browser's EventSource: it opens the one stream it was issued for, once, within about a minute. Never a bearer token."}
		hop.Security = append(hop.Security, map[string][]string{TicketScheme: {}})
	}
	hop.Responses[strconv.Itoa(http.StatusNoContent)] = &huma.Response{
		Description: "Nothing to follow: a reconnection after the last event, when nothing has happened since and nothing more will. A browser's EventSource stops reconnecting."}
}
