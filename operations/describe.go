package operations

import (
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"cairn.dev/cairn/registry"
)

var problemType = reflect.TypeFor[registry.Problem]()
var confirmationType = reflect.TypeFor[ConfirmationProblem]()

// describe builds the OpenAPI operation of a declaration: parameters,
// headers, body and every answer the guards it declares can give.
func (f *Face) describe(op *registry.Operation) *huma.Operation {
	hop := &huma.Operation{
		OperationID: operationID(op.ID),
		Method:      op.HTTP.Method,
		Path:        op.HTTP.Path,
		Summary:     op.Summary,
		Description: describeGuards(op),
		Tags:        []string{f.tag(strings.SplitN(op.ID, ".", 2)[0])},
		Security:    security(op),
		Responses:   map[string]*huma.Response{},
	}
	for _, v := range op.URIVariables() {
		schema := &huma.Schema{Type: "string"}
		if v == op.Owner.Var && op.Owner.Shape() != "" {
			schema.Pattern = "^(?:" + op.Owner.Shape() + ")$" // anything else is 400, naming it
		}
		hop.Parameters = append(hop.Parameters, &huma.Param{
			Name: v, In: "path", Required: true, Schema: schema,
			Description: "Id of the " + op.VariableNoun(v) + ".",
		})
	}
	in := f.inputSchema(op)
	if op.HTTP.Method == http.MethodGet || op.HTTP.Method == http.MethodDelete {
		names := make([]string, 0, len(in.Properties))
		for n := range in.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			p := in.Properties[n]
			hop.Parameters = append(hop.Parameters, &huma.Param{Name: n, In: "query", Schema: p, Description: p.Description})
		}
	} else if len(op.HTTP.Files) > 0 {
		props := map[string]*huma.Schema{}
		for n, p := range in.Properties {
			props[n] = p
		}
		for _, name := range op.HTTP.Files {
			props[name] = &huma.Schema{Type: "string", Format: "binary", Description: "The file."}
		}
		hop.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			"multipart/form-data": {Schema: &huma.Schema{Type: "object", Properties: props, Required: op.HTTP.Files}},
		}}
	} else if st := f.schemas.statedOf(op); st != nil {
		hop.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
			"application/json": {Schema: st.documented()}}}
	} else if len(in.Properties) > 0 {
		ref := f.schemas.Of(op.InputType)
		content := map[string]*huma.MediaType{"application/json": {Schema: ref}}
		if op.HTTP.Method == http.MethodPatch {
			content["application/merge-patch+json"] = &huma.MediaType{Schema: ref}
		}
		hop.RequestBody = &huma.RequestBody{Required: true, Content: content}
	}
	if op.Precondition == registry.RequireVersion {
		hop.Parameters = append(hop.Parameters, &huma.Param{Name: "If-Match", In: "header", Required: true,
			Schema:      &huma.Schema{Type: "string"},
			Description: "The ETag (version) you last read, compared strongly (a W/ tag never matches); * is whatever version is current. Missing: 428; stale: 412."})
	}
	if op.Idempotency.Creation() {
		hop.Parameters = append(hop.Parameters, &huma.Param{Name: HeaderIdempotencyKey, In: "header", Required: true,
			Schema:      &huma.Schema{Type: "string", MinLength: intPtr(16), MaxLength: intPtr(255)},
			Description: "One opaque key per intent, 16 to 255 characters, sent unchanged on every retry. Missing or malformed: 400; reused with another body: 409."})
	}
	if op.Confirm.Asks() {
		hop.Parameters = append(hop.Parameters, &huma.Param{Name: HeaderConfirmationToken, In: "header",
			Schema:      &huma.Schema{Type: "string"},
			Description: "Token from the 409 confirmation-required answer. Without it nothing is written and the impact is described."})
	}

	success := &huma.Response{Description: http.StatusText(op.HTTP.Status), Headers: map[string]*huma.Param{}}
	switch {
	case streams(op):
		f.describeStream(hop, op, success) // openapi.go
	case op.OutputType.Implements(reflect.TypeFor[registry.Download]()):
		success.Content = fileContent(op)
	case redirects(op): // form.go: the Location alone, set by describeForm
		success.Content = map[string]*huma.MediaType{}
	case op.HTTP.Status != http.StatusNoContent:
		success.Content = map[string]*huma.MediaType{"application/json": {Schema: f.schemas.Of(op.OutputType)}}
	}
	if op.HTTP.Pages() {
		success.Content["text/html"] = &huma.MediaType{Schema: &huma.Schema{Type: "string",
			Description: "The page a browser shows, when Accept prefers text/html to JSON (Vary: Accept)."}}
	}
	if reflect.PointerTo(op.OutputType).Implements(reflect.TypeFor[registry.Versioned]()) || op.OutputType.Implements(reflect.TypeFor[registry.Versioned]()) {
		desc := "The structural version, to send back as If-Match."
		if op.HTTP.Method == http.MethodGet {
			desc = "The structural version, a dash and a hash of this answer: send it back as If-Match (its version is compared) or If-None-Match (304 while the answer is unchanged)."
		}
		success.Headers["ETag"] = &huma.Param{Description: desc, Schema: &huma.Schema{Type: "string"}}
	}
	if op.OutputType.Implements(reflect.TypeFor[registry.Located]()) && (op.HTTP.Status == http.StatusCreated || op.HTTP.Status == http.StatusAccepted) {
		success.Headers["Location"] = &huma.Param{Description: "Address of the resource.", Schema: &huma.Schema{Type: "string"}}
	}
	if op.Idempotency.Creation() {
		success.Headers[HeaderIdempotentReplayed] = &huma.Param{Description: "true when the answer replays the first creation of this key.", Schema: &huma.Schema{Type: "string"}}
	}
	hop.Responses[strconv.Itoa(op.HTTP.Status)] = success
	describeForm(hop, op, success) // form.go
	if op.HTTP.Status == http.StatusAccepted && op.OutputType.Implements(reflect.TypeFor[registry.StatusChooser]()) {
		// A write that may finish at once (registry.StatusChooser) answers 200 then.
		done := *success
		done.Description = "The write finished at once, leaving nothing to compute in the background."
		done.Headers = map[string]*huma.Param{}
		for k, h := range success.Headers {
			if k != "Location" {
				done.Headers[k] = h
			}
		}
		hop.Responses[strconv.Itoa(http.StatusOK)] = &done
	}
	if _, versioned := success.Headers["ETag"]; versioned && op.HTTP.Method == http.MethodGet {
		hop.Parameters = append(hop.Parameters, &huma.Param{Name: "If-None-Match", In: "header",
			Schema: &huma.Schema{Type: "string"}, Description: "ETags you hold: 304 without a body when one is current."})
		hop.Responses[strconv.Itoa(http.StatusNotModified)] = &huma.Response{Description: "The ETag you hold is current."}
	}

	problem := func(status int, why string) {
		hop.Responses[strconv.Itoa(status)] = &huma.Response{
			Description: why,
			Content:     map[string]*huma.MediaType{"application/problem+json": {Schema: f.problemSchema()}},
		}
	}
	if op.Scope != registry.Public {
		problem(http.StatusUnauthorized, "No valid bearer token.")
		problem(http.StatusForbidden, "The token lacks the scope "+string(op.Scope)+".")
	}
	problem(http.StatusUnprocessableEntity, "An argument is not published, missing or out of range; every field is named.")
	problem(http.StatusInternalServerError, "An internal error; nothing is shown of it.")
	// Any call meets a store that is down; some meet a server at capacity
	// (as many uploads as it reads at once): both say when to come back.
	problem(http.StatusServiceUnavailable, "A service the server depends on is down, or the server is at capacity for this call; send it again after Retry-After.")
	hop.Responses[strconv.Itoa(http.StatusServiceUnavailable)].Headers = map[string]*huma.Param{
		"Retry-After": {Description: "Seconds to wait.", Schema: &huma.Schema{Type: "integer"}},
	}
	if op.RateLimit.Refuses() {
		problem(http.StatusTooManyRequests, "Too many calls; see Retry-After, RateLimit-Policy and RateLimit.")
		hop.Responses[strconv.Itoa(http.StatusTooManyRequests)].Headers = map[string]*huma.Param{
			"Retry-After":         {Description: "Seconds to wait.", Schema: &huma.Schema{Type: "integer"}},
			HeaderRateLimitPolicy: {Description: `The limit reached: "user";q=10;w=60 (calls, window in seconds).`, Schema: &huma.Schema{Type: "string"}},
			HeaderRateLimit:       {Description: `What is left of it: "user";r=0;t=42 (seconds until it resets).`, Schema: &huma.Schema{Type: "string"}},
		}
	}
	if hop.RequestBody != nil && len(op.HTTP.Files) == 0 {
		problem(http.StatusUnsupportedMediaType, "The body is not JSON.")
	}
	if op.Owner.ByVariable() {
		problem(http.StatusNotFound, "Unknown, or not yours: the same answer.")
	}
	if op.Lock.Applies() {
		problem(http.StatusLocked, "The record is locked.")
	}
	if op.Precondition == registry.RequireVersion {
		problem(http.StatusPreconditionFailed, "The If-Match version is stale.")
		problem(http.StatusPreconditionRequired, "If-Match is missing.")
	}
	if op.Idempotency.Creation() || op.HTTP.Method != http.MethodGet {
		problem(http.StatusBadRequest, "The request cannot be read (body, or Idempotency-Key).")
	}
	f.conflicts(hop, op) // openapi.go
	return hop
}

func (f *Face) inputSchema(op *registry.Operation) *huma.Schema {
	return f.schemas.Resolved(op.InputType)
}

// describeGuards says in words which guards the declaration applies.
func describeGuards(op *registry.Operation) string {
	var b strings.Builder
	b.WriteString("Scope `" + string(op.Scope) + "`.")
	if op.Tool.IsTool() {
		b.WriteString(" MCP tool `" + op.Tool.Name + "`.")
	} else {
		b.WriteString(" Not an MCP tool: " + op.Tool.Motive.String() + ".")
	}
	if op.RateLimit.Limited() {
		b.WriteString(" Limited to " + op.RateLimit.String() + ".")
	}
	if op.Paging.Lists() {
		b.WriteString(" Lists " + op.Paging.String() + " (itemsPerPage).")
	}
	if op.Lock.Applies() {
		b.WriteString(" Refused with 423 when " + op.Lock.Reason + ".")
	}
	if op.Confirm.Asks() {
		b.WriteString(" Asks for confirmation (409 " + ConfirmationType + ") before acting.")
	}
	return b.String()
}

func intPtr(n int) *int { return &n }

func security(op *registry.Operation) []map[string][]string {
	if op.Scope == registry.Public {
		return []map[string][]string{} // no credential at all
	}
	return []map[string][]string{{"bearer": {string(op.Scope)}}}
}
