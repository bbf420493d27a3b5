// Package registry holds what exists: the declaration of every operation with
// all of its guards, the transport-neutral Call the guards judge, and the
// Registry both faces are generated from. It imports the standard library only.
package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Op declares one operation, once, with every guard it needs. I is the input
// (body on HTTP, arguments on MCP, URI variables excluded); O is the output.
// Every guard field must be written: the zero value means "not declared" and
// is refused when the registry is checked at start-up.
type Op[I, O any] struct {
	ID           string       // <module>.<action>
	Summary      string       // one line for the OpenAPI document
	HTTP         Route        // where it answers on HTTP
	Tool         ToolSpec     // the MCP tool, or why it is not one
	Resource     ResourceSpec // a read served as an MCP resource instead (Tool unwritten)
	Scope        Scope
	Owner        OwnerRule
	RateLimit    RateRule
	Load         func(ctx context.Context, c *Call) (Record, error)        // the read step; nil when nothing is read
	Merge        func(ctx context.Context, c *Call, in *I) (Record, error) // the merge step; nil for reads; queries through storage.Conn(ctx, db)
	Validate     Validation
	Lock         LockRule
	Precondition Precondition
	Confirm      Confirmation
	Idempotency  Idempotency
	Hints        Hints
	Dispatches   bool   // starts background work; never idempotent-hinted
	Paging       Paging // a listing's page sizes (registry.Paged); its input embeds PageInput, its output PageInfo
	Record       any    // a typed nil of the record a write changes; its fields bound the arguments
	// InputSchema states the input's JSON Schema verbatim, for a schema
	// its Go type cannot say (2020-12 composition, conditionals, anchors):
	// the MCP face publishes it as it is and the arguments guard judges
	// the arguments against it on both faces, before they are decoded
	// into I. Nil: the schema is I's.
	InputSchema json.RawMessage
	// Refusals are the refusals Handle (or Merge) itself may answer beyond
	// the guards' own, such as a business rule's 409: the HTTP face
	// documents each under its status, with its code.
	Refusals []*Error
	// Handle does the work; a creation's runs in the idempotency guard's
	// transaction, so its queries go through storage.Conn(ctx, db).
	Handle func(ctx context.Context, c *Call, in *I) (O, error)
}

// Operation is the type-erased form of an Op, what guards and faces see.
type Operation struct {
	ID           string
	Summary      string
	HTTP         Route
	Tool         ToolSpec
	Resource     ResourceSpec
	Scope        Scope
	Owner        OwnerRule
	RateLimit    RateRule
	Load         func(ctx context.Context, c *Call) (Record, error)
	Merge        func(ctx context.Context, c *Call) (Record, error)
	Validate     Validation
	Lock         LockRule
	Precondition Precondition
	Confirm      Confirmation
	Idempotency  Idempotency
	Hints        Hints
	Dispatches   bool
	Paging       Paging
	RecordType   reflect.Type    // nil when the operation writes no record
	Refusals     []*Error        // what the handler itself may refuse with (Op.Refusals)
	InputSchema  json.RawMessage // the stated input schema (Op.InputSchema); nil for none
	Handle       func(ctx context.Context, c *Call) (any, error)

	InputType  reflect.Type // the Go type both faces publish the schema of
	OutputType reflect.Type
	newInput   func() any
}

// NewInput returns a pointer to a zero input value.
func (o *Operation) NewInput() any { return o.newInput() }

// Writes reports whether the operation changes anything: every method but
// GET does, unless the route says it only reads (Route.Reading).
func (o *Operation) Writes() bool { return o.HTTP.Method != "GET" && !o.HTTP.reads }

// URIVariables lists the path parameters of the HTTP route, in order. Both
// faces ask on every call: each route is read once, and the list shared
// (clipped, so that an append copies it).
func (o *Operation) URIVariables() []string {
	if v, ok := uriVariables.Load(o.HTTP.Path); ok {
		return v.([]string)
	}
	var out []string
	for _, m := range pathVar.FindAllStringSubmatch(o.HTTP.Path, -1) {
		out = append(out, m[1])
	}
	out = slices.Clip(out)
	uriVariables.Store(o.HTTP.Path, out)
	return out
}

// uriVariables holds URIVariables' answer for each route read so far.
var uriVariables sync.Map

var pathVar = regexp.MustCompile(`\{([A-Za-z][A-Za-z0-9_]*)\}`)

// VariableNoun names what the URI variable v identifies, for its
// description: the path segment before it, singular ("/trips/{id}" gives
// "trip"), or v without its "Id" suffix when no segment precedes it.
func (o *Operation) VariableNoun(v string) string {
	segs := strings.Split(strings.Trim(o.HTTP.Path, "/"), "/")
	for i, s := range segs {
		if (s == "{"+v+"}" || strings.HasPrefix(s, "{"+v+"}.")) && i > 0 && !strings.HasPrefix(segs[i-1], "{") {
			noun := segs[i-1]
			switch {
			case strings.HasSuffix(noun, "ies"):
				return strings.TrimSuffix(noun, "ies") + "y"
			case strings.HasSuffix(noun, "s"):
				return strings.TrimSuffix(noun, "s")
			}
			return noun
		}
	}
	return strings.TrimSuffix(v, "Id")
}

// Add declares op in reg. Problems are collected and reported by Check, so
// that start-up names every broken declaration at once.
func Add[I, O any](reg *Registry, op Op[I, O]) {
	handle, merge := op.Handle, op.Merge
	o := &Operation{
		ID: op.ID, Summary: op.Summary, HTTP: op.HTTP, Tool: op.Tool, Resource: op.Resource, Scope: op.Scope,
		Owner: op.Owner, RateLimit: op.RateLimit, Load: op.Load, Validate: op.Validate,
		Lock: op.Lock, Precondition: op.Precondition, Confirm: op.Confirm,
		Idempotency: op.Idempotency, Hints: op.Hints, Dispatches: op.Dispatches, Paging: op.Paging, Refusals: op.Refusals, InputSchema: op.InputSchema,
		InputType:  reflect.TypeFor[I](),
		OutputType: reflect.TypeFor[O](),
		newInput:   func() any { return new(I) },
	}
	if op.Record != nil {
		o.RecordType = reflect.TypeOf(op.Record)
	}
	if handle != nil {
		o.Handle = func(ctx context.Context, c *Call) (any, error) {
			in, _ := c.Input.(*I)
			if in == nil {
				in = new(I)
			}
			return handle(ctx, c, in)
		}
	}
	if merge != nil {
		o.Merge = func(ctx context.Context, c *Call) (Record, error) {
			in, _ := c.Input.(*I)
			if in == nil {
				in = new(I)
			}
			return merge(ctx, c, in)
		}
	}
	reg.ops = append(reg.ops, o)
}

// Declarer fills a registry; each feature module provides one.
type Declarer func(reg *Registry)

// Registry is the list of declared operations and the scopes they use.
type Registry struct {
	ops     []*Operation
	scopes  []ScopeDoc
	prompts []Prompt // prompt.go

	locales     *Locales // locale.go
	localesOnce sync.Once
}

// ScopeDoc is one scope of the vocabulary and what it permits.
type ScopeDoc struct {
	Scope  Scope
	Access Access
	Doc    string
}

// Access says whether a scope permits reading only, or changing too.
type Access int

// The accesses of a scope. The zero value is undeclared.
const (
	accessUndeclared Access = iota
	// ReadScope permits reads: an operation that writes may not be
	// declared under it, so a read-only token can never change anything.
	ReadScope
	// WriteScope permits writes (and the reads that go with them).
	WriteScope
)

// String names the access as the guard matrix prints it.
func (a Access) String() string {
	switch a {
	case ReadScope:
		return "read"
	case WriteScope:
		return "write"
	}
	return "undeclared"
}

// DeclareScope adds s to the vocabulary, as a read or a write scope, with a
// sentence saying what it permits. Each module declares the scopes it
// introduces; an operation may use a scope another module declared.
func (r *Registry) DeclareScope(s Scope, access Access, doc string) {
	r.scopes = append(r.scopes, ScopeDoc{Scope: s, Access: access, Doc: doc})
}

// ScopeAccess is the access s was declared with; undeclared for a scope
// not in the vocabulary.
func (r *Registry) ScopeAccess(s Scope) Access {
	for _, d := range r.scopes {
		if d.Scope == s {
			return d.Access
		}
	}
	return accessUndeclared
}

// Scopes lists the declared scopes, sorted.
func (r *Registry) Scopes() []Scope {
	seen := map[Scope]bool{}
	var out []Scope
	for _, d := range r.scopes {
		if !seen[d.Scope] {
			seen[d.Scope] = true
			out = append(out, d.Scope)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ScopeDocs lists the declared scopes with what they permit, sorted.
func (r *Registry) ScopeDocs() []ScopeDoc {
	out := append([]ScopeDoc(nil), r.scopes...)
	sort.Slice(out, func(i, j int) bool { return out[i].Scope < out[j].Scope })
	return out
}

// HasScope reports whether s was declared.
func (r *Registry) HasScope(s Scope) bool {
	for _, d := range r.scopes {
		if d.Scope == s {
			return true
		}
	}
	return false
}

// New returns an empty registry.
func New() *Registry { return &Registry{} }

// Operations returns the operations sorted by ID, so that every listing
// derived from the registry is stable.
func (r *Registry) Operations() []*Operation {
	out := append([]*Operation(nil), r.ops...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup finds an operation by ID.
func (r *Registry) Lookup(id string) (*Operation, bool) {
	for _, o := range r.ops {
		if o.ID == id {
			return o, true
		}
	}
	return nil, false
}

// Tools groups the tool operations by tool name, sorted by name; within a
// tool, operations are sorted by action.
func (r *Registry) Tools() [][]*Operation {
	byName := map[string][]*Operation{}
	for _, o := range r.Operations() {
		if o.Tool.IsTool() {
			byName[o.Tool.Name] = append(byName[o.Tool.Name], o)
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([][]*Operation, 0, len(names))
	for _, n := range names {
		ops := byName[n]
		sort.Slice(ops, func(i, j int) bool { return ops[i].Tool.Action < ops[j].Tool.Action })
		out = append(out, ops)
	}
	return out
}

var (
	idPattern   = regexp.MustCompile(`^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$`)
	toolPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
)

// Check refuses duplicate IDs, clashing routes, malformed or clashing tool
// names, clashing schema names, undeclared or twice-declared scopes and
// undeclared guards. It is called once at start-up, before either face is
// built; the error names every problem found.
func (r *Registry) Check() error {
	var problems []string
	add := func(o *Operation, format string, args ...any) {
		problems = append(problems, o.ID+": "+fmt.Sprintf(format, args...))
	}
	scopeSeen := map[Scope]bool{}
	for _, d := range r.scopes {
		switch {
		case d.Scope == "" || d.Scope == Public || strings.ContainsAny(string(d.Scope), " \t\n\""):
			problems = append(problems, fmt.Sprintf("scope %q: a scope is a non-empty word other than %q", d.Scope, Public))
		case scopeSeen[d.Scope]:
			problems = append(problems, fmt.Sprintf("scope %s is declared twice", d.Scope))
		case d.Doc == "":
			problems = append(problems, fmt.Sprintf("scope %s has no description", d.Scope))
		case d.Access != ReadScope && d.Access != WriteScope:
			problems = append(problems, fmt.Sprintf("scope %s is declared neither a read nor a write scope (registry.ReadScope, registry.WriteScope)", d.Scope))
		}
		scopeSeen[d.Scope] = true
	}
	schemas := map[string]schemaUse{}
	ids := map[string]bool{}
	routes := map[string]string{}
	tools := map[string]*Operation{}
	for _, o := range r.Operations() {
		if !idPattern.MatchString(o.ID) {
			add(o, "ID must read <module>.<action> in lower snake case")
		}
		if ids[o.ID] {
			add(o, "duplicate operation ID")
		}
		ids[o.ID] = true
		if o.HTTP.Method == "" || !strings.HasPrefix(o.HTTP.Path, "/") || o.HTTP.Status == 0 {
			add(o, "HTTP route is not declared")
		} else {
			key := o.HTTP.Method + " " + pathVar.ReplaceAllString(o.HTTP.Path, "{}")
			if other, ok := routes[key]; ok {
				add(o, "HTTP route %s clashes with %s", key, other)
			}
			routes[key] = o.ID
		}
		switch {
		case o.Tool.IsTool() && o.Tool.Motive != motiveNone:
			add(o, "a tool cannot also have an exclusion motive")
		case o.Tool.IsTool():
			if !toolPattern.MatchString(o.Tool.Name) {
				add(o, "tool name %q must match [a-zA-Z0-9_-] and be at most 64 characters", o.Tool.Name)
			}
			if o.Tool.Description == "" {
				add(o, "tool %s has no description", o.Tool.Name)
			}
			if other, ok := tools[o.Tool.Name]; ok && (o.Tool.Action == "" || other.Tool.Action == "" || other.Tool.Action == o.Tool.Action) {
				add(o, "tool name %s is already used by %s", o.Tool.Name, other.ID)
			}
			tools[o.Tool.Name] = o
		case o.Resource.IsResource():
			// resourceProblems judges it.
		case motiveNames[o.Tool.Motive] == "":
			add(o, "neither a tool, a resource nor an exclusion motive is declared")
		}
		switch {
		case o.Scope == "":
			add(o, "scope is not declared")
		case o.Scope != Public && !scopeSeen[o.Scope]:
			add(o, "scope %s is not in the vocabulary: declare it with DeclareScope", o.Scope)
		case o.Writes() && r.ScopeAccess(o.Scope) == ReadScope:
			add(o, "it writes (%s) under the read scope %s: declare it under a write scope, or declare a POST that only reads with Route.Reading", o.HTTP.Method, o.Scope)
		}
		for _, clash := range schemaClashes(schemas, o) {
			add(o, "%s", clash)
		}
		if !o.Owner.Declared() {
			add(o, "owner is not declared (registry.ByURIVariable or registry.CallerOwned)")
		}
		if o.Owner.ByVariable() && !strings.Contains(o.HTTP.Path, "{"+o.Owner.Var+"}") {
			add(o, "owner variable %q is not in the route %s", o.Owner.Var, o.HTTP.Path)
		}
		for _, p := range ownerProblems(o) {
			add(o, "%s", p)
		}
		for _, p := range pagingProblems(o) {
			add(o, "%s", p)
		}
		for _, p := range inputSchemaProblems(o) {
			add(o, "%s", p)
		}
		for _, p := range headerProblems(o) {
			add(o, "%s", p)
		}
		if o.Tool.TaskOnly && !o.Dispatches {
			add(o, "a tool served only as a task dispatches work (Dispatches)")
		}
		if !o.RateLimit.Declared() {
			add(o, "rate limit is not declared (registry.PerUser or registry.NoRateLimit)")
		}
		for _, r := range o.RateLimit.Rules() {
			switch {
			case r.Key == KeyArgument && !publishes(o.InputType, r.Arg):
				add(o, "the rate limit counts by the argument %q, which the input does not publish", r.Arg)
			case r.Key == KeyVariable && !strings.Contains(o.HTTP.Path, "{"+r.Arg+"}"):
				add(o, "the rate limit counts by the URI variable %q, which is not in the route %s", r.Arg, o.HTTP.Path)
			case r.Key == KeyUser && o.Scope == Public:
				add(o, "a per-user limit on a public operation counts nobody: use registry.PerIP or registry.PerArgument")
			}
		}
		if !o.Validate.Declared() {
			add(o, "validation is not declared (registry.ValidateWith or registry.NotValidated)")
		}
		if o.Validate.Validates() && o.Merge == nil {
			add(o, "validation needs a merge step to judge")
		}
		if !o.Lock.Declared() {
			add(o, "lock is not declared (registry.LockWhen or registry.NoLock)")
		}
		if o.Lock.Applies() && o.Load == nil {
			add(o, "the lock judges the stored record: declare Load")
		}
		if o.Precondition == preconditionUndeclared {
			add(o, "precondition is not declared (registry.RequireVersion or registry.NoPrecondition)")
		}
		if o.Precondition == RequireVersion && o.Load == nil {
			add(o, "the precondition compares with the stored record: declare Load")
		}
		if !o.Confirm.Declared() {
			add(o, "confirmation is not declared (registry.ConfirmWith, registry.ConfirmWhenLoses or registry.NoConfirm)")
		}
		if o.Confirm.Declared() && !o.Confirm.Asks() && o.Confirm.Because() == "" && (o.HTTP.Method == "DELETE" || o.Hints.Destructive) {
			what := "a DELETE"
			if o.HTTP.Method != "DELETE" {
				what = "an operation hinted destructive"
			}
			add(o, "%s acts without confirmation: ask (registry.ConfirmWith, registry.ConfirmWhenLoses) or say why not (registry.NoConfirmBecause)", what)
		}
		if !o.Idempotency.Declared() {
			add(o, "idempotency is not declared (registry.CreationReplayedBy or registry.NotACreation)")
		}
		if o.Handle == nil {
			add(o, "no handler")
		}
		if k := o.InputType.Kind(); k != reflect.Struct {
			add(o, "input must be a struct, got %s", k)
		}
		if k := o.OutputType.Kind(); k != reflect.Struct {
			add(o, "output must be a struct, got %s", k)
		}
	}
	problems = append(problems, routeProblems(r.Operations())...)
	problems = append(problems, viewProblems(r.Operations())...)
	problems = append(problems, resourceProblems(r.Operations())...)
	problems = append(problems, r.promptProblems()...)
	if len(problems) > 0 {
		return fmt.Errorf("registry: %d broken declaration(s):\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	return nil
}

// Principal is who calls: resolved by the authenticate guard.
type Principal struct {
	UserID string
	Email  string
	Scopes []Scope
	// Resource is the resource the token was issued for (RFC 8707), such
	// as the MCP endpoint's URL; "" for a token valid at every resource of
	// this server (a personal access token).
	Resource string
}

// Has reports whether the principal carries scope s.
func (p *Principal) Has(s Scope) bool {
	for _, x := range p.Scopes {
		if x == s {
			return true
		}
	}
	return false
}

// BearerCredential reads the token of an Authorization header ("Bearer
// …", any case), or "" — both faces receive it the same way.
func BearerCredential(authorization string) string {
	if len(authorization) > 7 && strings.EqualFold(authorization[:7], "bearer ") {
		return strings.TrimSpace(authorization[7:])
	}
	return ""
}

// Face names the transport a call came through. Guards never branch on it;
// it exists for logs and metrics.
type Face string

// The two faces.
const (
	FaceHTTP Face = "http"
	FaceMCP  Face = "mcp"
)

// Asker asks the person behind a client to accept an impact, when the face
// can (MCP elicitation). It answers true only on an explicit accept.
type Asker interface {
	Ask(ctx context.Context, impact Impact) (bool, error)
}

// Progresser tells the caller how far a call's work has gone, when the face
// can (MCP: notifications/progress to the request's progress token).
type Progresser interface {
	Progress(ctx context.Context, done, total float64, message string)
}

// Call is the transport-neutral call every guard judges. Each face maps its
// own artefacts (headers, path, JSON-RPC arguments) onto it; if a guard needs
// something new, the face that owns it adds a field here.
type Call struct {
	Op   *Operation
	Face Face
	Now  time.Time

	RequestID  string     // the request's id, for logs and problem bodies
	Locale     string     // the language the call is answered in (locale.go), negotiated by the face
	Credential string     // the bearer token as sent
	Principal  *Principal // set by authenticate
	// ClientAddr is the caller's network address (an IP, no port) as the
	// face resolved it; "" when unknown. Per-address limits count by it.
	ClientAddr string
	// Cookies are the cookies the client sent, by name (HTTP only).
	Cookies map[string]string
	// Limited is set by the rate-limit guard when a silent limit is
	// reached: the handler answers its neutral outcome without acting.
	Limited bool

	Vars map[string]string          // URI variables
	Args map[string]json.RawMessage // the published input arguments as sent
	// WantsPage is set by the HTTP face on a route declared WithPages when
	// the request's Accept prefers text/html to JSON: the handler answers
	// an output whose AsPage is the page a person's browser shows.
	WantsPage bool
	// Unreadable is set by a face whose input could not be read at all (a
	// body that is not a JSON object); the arguments guard refuses it, so
	// the refusal still comes after authentication.
	Unreadable string
	// Handling is set by the chain when the operation's handler starts:
	// a refusal after it was made by the handler, past every guard.
	Handling bool
	// UnreadableIn names the argument or file Unreadable is about, when
	// one is (a file over the upload limit): the refusal names it.
	UnreadableIn string
	// Refused names parts of the request a face could not map onto one
	// argument or one declared file (a file part the operation does not
	// declare, a file or a field sent twice); the arguments guard refuses
	// them by name with the argument violations, never dropping them.
	Refused []Violation

	ExpectedVersion   *int64 // If-Match, or the "version" argument
	VersionMalformed  bool   // an expected version was sent that is not an integer
	AnyVersion        bool   // If-Match: *: whatever version is current
	WeakVersion       bool   // If-Match named a weak tag (W/"3"), which never matches
	Replayed          bool   // set by idempotency when the answer replays a first creation
	IdempotencyKey    string // Idempotency-Key, or "idempotencyKey"
	KeyDerived        bool   // the key was derived server-side from the arguments
	ConfirmationToken string // the confirmation header, or "confirmationToken"
	// DeclinedToken is a confirmation the person declined, sent back in a
	// multi round-trip retry: the confirm guard spends it and refuses, so
	// it can never be accepted after all.
	DeclinedToken string
	Files         map[string]File // uploaded files (HTTP uploads only)
	Asker         Asker           // nil when the face cannot ask a person
	// Progresser is set by a face whose caller asked to follow the call's
	// progress; handlers report through Call.Progress.
	Progresser Progresser
	// LastEventID is the id of the last event a reconnecting stream
	// received (Last-Event-ID), as sent: a stream resumes after it.
	LastEventID string
	// Askable are the kinds of input the face can ask this caller for
	// (CanAsk); InputAnswers are the caller's answers to an earlier
	// InputNeeded, by key, untrusted; SentState is the sealed state it
	// sent back, as sent, and InputState the handler's state once the
	// chain verified it (empty otherwise).
	Askable      map[InputKind]bool
	InputAnswers map[string]InputAnswer
	SentState    string
	InputState   string

	Input    any    // decoded *I, set by the arguments guard
	Previous Record // set by read: the stored record, never modified
	Merged   Record // set by merge: the record as it will be written

	Output any // set by handle, or by a replay
	// Confirmation is set instead of Output when the confirm guard short-circuits.
	Confirmation *ConfirmationRequest
}

// ConfirmationRequest is the answer to a confirmed operation called without
// a token: nothing was written.
type ConfirmationRequest struct {
	Impact    Impact    `json:"impact"`
	Token     string    `json:"confirmationToken"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// Progress reports how far the handler's work has gone (done of total,
// total 0 when unknown) to a caller that asked to follow it, and does
// nothing otherwise: a handler reports without knowing the face.
func (c *Call) Progress(ctx context.Context, done, total float64, message string) {
	if c.Progresser != nil {
		c.Progresser.Progress(ctx, done, total, message)
	}
}

// Var returns the URI variable v.
func (c *Call) Var(v string) string { return c.Vars[v] }

// ByFace picks the wording of the call's face: what comes next is said in
// each face's own vocabulary (a request and its headers on HTTP, a tool and
// its arguments on MCP), so an HTTP body never names a tool.
func (c *Call) ByFace(http, mcp string) string {
	if c.Face == FaceMCP {
		return mcp
	}
	return http
}

// UserID is the authenticated user's id ("" before authenticate).
func (c *Call) UserID() string {
	if c.Principal == nil {
		return "" // a public operation: nobody in particular
	}
	return c.Principal.UserID
}

// Sent reports whether the caller sent argument name (null included).
func (c *Call) Sent(name string) bool {
	_, ok := c.Args[name]
	return ok
}

// ownerProblems refuses a route whose URI variables the owner rule does not
// all cover, and children declared out of the path's order: a variable no
// rule judges names a record nobody authorized (another user's item
// reached through one's own list).
func ownerProblems(o *Operation) []string {
	if !o.Owner.Declared() {
		return nil // reported as undeclared
	}
	vars := o.URIVariables()
	pos := map[string]int{}
	for i, v := range vars {
		pos[v] = i
	}
	var out []string
	for _, c := range o.Owner.children {
		i, ok := pos[c.Var]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("the owner rule's child {%s} is not in the route %s", c.Var, o.HTTP.Path))
		case pos[c.Parent] >= i:
			out = append(out, fmt.Sprintf("the owner rule's child {%s} must come after its parent {%s} in the route %s", c.Var, c.Parent, o.HTTP.Path))
		}
	}
	for _, v := range vars {
		if o.Owner.Covers(v) {
			continue
		}
		if !o.Owner.ByVariable() {
			out = append(out, fmt.Sprintf("the route %s names {%s}, but the operation is declared CallerOwned: authorize it (registry.ByURIVariable)", o.HTTP.Path, v))
			continue
		}
		out = append(out, fmt.Sprintf("the URI variable {%s} of %s is authorized by no rule: declare it a child of {%s} "+
			"(OwnerRule.Child, judged by its parent) or claim the handler looks it up within {%s} (OwnerRule.Within, which the conformance kit tests)",
			v, o.HTTP.Path, o.Owner.last(), o.Owner.last()))
	}
	return out
}
