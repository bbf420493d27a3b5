package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Scope is an OAuth-style permission carried by a credential.
type Scope string

// Public is the scope of an operation anyone may call without a credential
// (a share link's reads): authenticate and scope skip it by declaration.
const Public Scope = "public"

// JoinScopes spells scopes as OAuth does (RFC 6749 §3.3): separated by
// spaces, in the order given.
func JoinScopes(scs []Scope) string {
	parts := make([]string, len(scs))
	for i, s := range scs {
		parts[i] = string(s)
	}
	return strings.Join(parts, " ")
}

// Route is where an operation answers on HTTP, and with which success status.
type Route struct {
	Method string
	Path   string // huma/OpenAPI style: /trips/{id}
	Status int
	Files  []string // multipart file fields, for an upload (HTTP only)
	// refusalPage is set by WithPages: the route also answers a person's
	// browser, and this renders a refusal as a page.
	refusalPage func(e *Error) Page
	// form is set by WithForm: the route also takes an HTML form's body.
	form bool
	// reads is set by Reading: a POST whose body is a query, not a change.
	reads bool
}

// Reading returns the route of a POST that changes nothing: its arguments
// are a query too large or too structured for a URL. It counts as a read
// for the hints, the scopes and the conformance kit, which checks that a
// valid call writes nothing.
func (r Route) Reading() Route { r.reads = true; return r }

// Reads reports whether the route was declared Reading.
func (r Route) Reads() bool { return r.reads }

// Upload declares a multipart POST carrying the given file fields; its
// other form fields are the input's arguments.
func Upload(path string, status int, files ...string) Route {
	return Route{Method: http.MethodPost, Path: path, Status: status, Files: files}
}

// Get declares a read answering 200.
func Get(path string) Route { return Route{Method: http.MethodGet, Path: path, Status: http.StatusOK} }

// Post declares a POST answering status (201 for a creation, 202 when work continues).
func Post(path string, status int) Route {
	return Route{Method: http.MethodPost, Path: path, Status: status}
}

// Patch declares a merge-patch update answering status.
func Patch(path string, status int) Route {
	return Route{Method: http.MethodPatch, Path: path, Status: status}
}

// Delete declares a DELETE answering 204 without a body.
func Delete(path string) Route {
	return Route{Method: http.MethodDelete, Path: path, Status: http.StatusNoContent}
}

// Motive says why an operation is not an MCP tool. The list is closed (the
// eight motives of ADR-080 §2): adding one is a change to this package.
type Motive int

// The exclusion motives. The zero value is no motive at all.
const (
	motiveNone Motive = iota
	MotiveNoTextualEquivalent
	MotiveBinaryPayload
	MotiveLiveDevice
	MotiveBrowserAndMailbox
	MotiveIrreversibleIdentity
	MotiveCoveredByAnotherTool
	MotiveUIVocabulary
	MotiveInfrastructure
)

var motiveNames = map[Motive]string{
	MotiveNoTextualEquivalent:  "no textual equivalent",
	MotiveBinaryPayload:        "binary or bulk payload",
	MotiveLiveDevice:           "needs a live device",
	MotiveBrowserAndMailbox:    "needs a browser and a mailbox",
	MotiveIrreversibleIdentity: "irreversible at identity level",
	MotiveCoveredByAnotherTool: "already covered by another tool",
	MotiveUIVocabulary:         "UI vocabulary, not domain",
	MotiveInfrastructure:       "infrastructure",
}

// String names the motive as ADR-080 does.
func (m Motive) String() string {
	if s, ok := motiveNames[m]; ok {
		return s
	}
	return "none"
}

// ToolSpec is either an MCP tool (Name, Description) or a motive for not
// being one. Several operations may share one tool name, each answering one
// value of the tool's "action" argument.
type ToolSpec struct {
	Name        string
	Description string
	// Title is the tool's display name; without one the MCP face spells
	// the tool's name in words ("get_trip" gives "Get trip").
	Title  string
	Action string // non-empty when the tool groups several operations
	Motive Motive
	// View is the HTML view a host may show beside the tool's results
	// (Viewed); nil for none.
	View *View
	// Headers maps the arguments a client mirrors in request headers to
	// the headers' names (Mirrored); nil for none.
	Headers map[string]string
	// TaskOnly says the tool's work is followed only as a task
	// (TaskRequired).
	TaskOnly bool
}

// TaskRequired says a dispatching tool is served only as a task at the
// revisions that have the tasks extension: a call that does not declare
// the extension is refused (MCP -32021, naming it) before any guard. Older
// revisions, which have no tasks, and the HTTP twin answer as for any
// operation that dispatches work.
func (t ToolSpec) TaskRequired() ToolSpec {
	t.TaskOnly = true
	return t
}

// Tool declares the MCP tool serving an operation.
func Tool(name, description string) ToolSpec {
	return ToolSpec{Name: name, Description: description}
}

// ToolAction declares one branch of a tool that groups several operations.
func ToolAction(name, description, action string) ToolSpec {
	return ToolSpec{Name: name, Description: description, Action: action}
}

// Titled returns the spec with a display title.
func (t ToolSpec) Titled(title string) ToolSpec { t.Title = title; return t }

// NotATool declares that an operation is HTTP only, for one motive.
func NotATool(m Motive) ToolSpec { return ToolSpec{Motive: m} }

// IsTool reports whether the operation is served over MCP.
func (t ToolSpec) IsTool() bool { return t.Name != "" }

// OwnerFunc reports whether the user owns the record named by id. It must
// not distinguish "absent" from "someone else's": both are false. An error
// of KindNotFound or KindForbidden says the same (not yours) and gets the
// same 404; any other error is a failure (500).
type OwnerFunc func(ctx context.Context, userID, id string) (bool, error)

// ChildFunc reports whether the record named by childID belongs to the one
// named by parentID (the item to the list it is on). Like an OwnerFunc, it
// must not tell "absent" from "someone else's": both are false.
type ChildFunc func(ctx context.Context, parentID, childID string) (bool, error)

// ChildRule authorizes one URI variable by the variable before it on the
// path: Check judges the child by its parent, already authorized. A rule
// without Check is a claim (Within) that the handler looks the child up
// within its authorized parent, which the conformance kit tests.
type ChildRule struct {
	Var    string // the child's URI variable
	Parent string // the variable it belongs to
	Check  ChildFunc
}

// Claimed reports whether the child is looked up within its parent by the
// handler (Within) rather than judged by the owner guard (Child).
func (c ChildRule) Claimed() bool { return c.Check == nil }

// OwnerRule is authorization by URI variable, decided before anything is
// read: the first variable by the caller, each further one by the variable
// before it (Child, Within).
type OwnerRule struct {
	Var      string
	Check    OwnerFunc
	self     bool
	terms    []string
	shape    *regexp.Regexp // set by Matching: the values that can name anything
	children []ChildRule
}

// Child returns the rule authorizing, besides what it already does, the
// URI variable v by the last variable it authorizes: check reports whether
// v's record belongs to that one. A route with a child resource
// (/lists/{id}/items/{itemId}) authorizes the list by the caller and the
// item by its list, so another user's item is never reached through one's
// own list.
func (o OwnerRule) Child(v string, check ChildFunc) OwnerRule {
	o.children = append(append([]ChildRule(nil), o.children...), ChildRule{Var: v, Parent: o.last(), Check: check})
	return o
}

// Within returns the rule claiming that the handler looks the URI variable
// v up within the last variable the rule authorizes (WHERE list_id = ? AND
// id = ?), so no check of its own is needed. The claim is tested, not
// trusted: the conformance kit swaps v for another user's and requires the
// answer of an unknown id.
func (o OwnerRule) Within(v string) OwnerRule {
	o.children = append(append([]ChildRule(nil), o.children...), ChildRule{Var: v, Parent: o.last()})
	return o
}

// last is the variable a new child belongs to.
func (o OwnerRule) last() string {
	if n := len(o.children); n > 0 {
		return o.children[n-1].Var
	}
	return o.Var
}

// Children lists the rule's child variables, in path order.
func (o OwnerRule) Children() []ChildRule { return append([]ChildRule(nil), o.children...) }

// Covers reports whether the rule authorizes the URI variable v, by the
// caller or by its parent.
func (o OwnerRule) Covers(v string) bool {
	if o.ByVariable() && o.Var == v {
		return true
	}
	for _, c := range o.children {
		if c.Var == v {
			return true
		}
	}
	return false
}

// ByURIVariable authorizes by the URI variable v (a path parameter on HTTP,
// the argument of the same name on MCP).
func ByURIVariable(v string, check OwnerFunc) OwnerRule { return OwnerRule{Var: v, Check: check} }

// OneOf authorizes a URI variable that names a term of a closed list (a
// notification category, say) rather than someone's record: any other
// value is 404, and every caller may address every term.
func OneOf(v string, terms ...string) OwnerRule {
	known := map[string]bool{}
	for _, t := range terms {
		known[t] = true
	}
	return OwnerRule{Var: v, terms: append([]string(nil), terms...),
		Check: func(_ context.Context, _, id string) (bool, error) { return known[id], nil }}
}

// Terms lists the terms of a OneOf rule; nil for any other rule.
func (o OwnerRule) Terms() []string { return o.terms }

// CallerOwned declares an operation addressed by no id: it acts on the
// caller's own collection (list, create), so there is nothing to authorize.
var CallerOwned = OwnerRule{self: true}

// Declared reports whether the rule was written on the declaration.
func (o OwnerRule) Declared() bool { return o.self || (o.Var != "" && o.Check != nil) }

// ByVariable reports whether the rule authorizes by a URI variable.
func (o OwnerRule) ByVariable() bool { return o.Var != "" && o.Check != nil }

// RateRule is a sliding-window limit on one operation: per user by
// default, or per client address (PerIP), per value of one argument
// (PerArgument) or per user and URI variable (PerVariable). Several limits
// combine with And; a call must pass each.
type RateRule struct {
	Limit  int
	Window time.Duration
	// SharedOnly refuses calls (503 with Retry-After) while the count shared
	// between replicas (Redis) cannot be reached. Otherwise each replica
	// counts in process meanwhile: the limit holds per replica.
	SharedOnly bool
	// Key is what the calls are counted by; Arg names the argument when Key
	// is KeyArgument, the URI variable when it is KeyVariable.
	Key RateKey
	Arg string
	// Silent lets a call over the limit through with Call.Limited set,
	// instead of refusing it with 429: the handler answers the neutral
	// outcome without acting, so the answer says nothing (a sign-in link
	// asked for too often answers as any other).
	Silent bool
	more   []RateRule
	none   bool
}

// RateKey is what a limit counts calls by.
type RateKey int

// The keys of a limit. The zero value counts per user.
const (
	KeyUser     RateKey = iota // the authenticated user
	KeyAddress                 // the client's network address (Call.ClientAddr)
	KeyArgument                // the value of one argument, trimmed and lower-cased
	KeyVariable                // the user and the value of one URI variable (one trip of theirs)
)

// PerUser limits each user to n calls of the operation per window.
func PerUser(n int, window time.Duration) RateRule { return RateRule{Limit: n, Window: window} }

// PerIP limits each client address to n calls of the operation per window.
// The faces set the address (Call.ClientAddr); a call without one is not
// counted by this limit.
func PerIP(n int, window time.Duration) RateRule {
	return RateRule{Limit: n, Window: window, Key: KeyAddress}
}

// PerArgument limits each value of argument arg (an email address, say) to
// n calls per window, whoever sends them. The value is compared trimmed and
// lower-cased; a call without the argument is not counted by this limit.
func PerArgument(arg string, n int, window time.Duration) RateRule {
	return RateRule{Limit: n, Window: window, Key: KeyArgument, Arg: arg}
}

// PerVariable limits each user to n calls of the operation per window on
// each value of URI variable v: "10 per trip" counts one trip's calls, so
// a busy trip does not use up the budget of the user's others. The user is
// part of the count, so calls naming someone else's trip (refused as not
// found after this guard) never spend the owner's budget.
func PerVariable(v string, n int, window time.Duration) RateRule {
	return RateRule{Limit: n, Window: window, Key: KeyVariable, Arg: v}
}

// And returns the rule combined with further limits: a call must pass each.
func (r RateRule) And(more ...RateRule) RateRule {
	r.more = append(append([]RateRule(nil), r.more...), more...)
	return r
}

// Shared returns the rule with SharedOnly set: for a limit that must hold
// across replicas even while Redis is down, at the price of refusing calls.
func (r RateRule) Shared() RateRule { r.SharedOnly = true; return r }

// Silently returns the rule, every combined limit included, made silent.
func (r RateRule) Silently() RateRule {
	out := r
	out.Silent = true
	out.more = make([]RateRule, len(r.more))
	for i, m := range r.more {
		m.Silent = true
		out.more[i] = m
	}
	return out
}

// Rules lists the limits of the rule, the first one first, each on its own.
func (r RateRule) Rules() []RateRule {
	if !r.Limited() {
		return nil
	}
	first := r
	first.more = nil
	out := []RateRule{first}
	for _, m := range r.more {
		if m.Limit > 0 && m.Window > 0 {
			out = append(out, m)
		}
	}
	return out
}

// Refuses reports whether some limit answers 429 rather than silently.
func (r RateRule) Refuses() bool {
	for _, x := range r.Rules() {
		if !x.Silent {
			return true
		}
	}
	return false
}

// String describes the limits for people: "3 calls per 15m0s per email,
// 10 calls per 15m0s per client address (silent)".
func (r RateRule) String() string {
	rules := r.Rules()
	if len(rules) == 0 {
		return "none"
	}
	parts := make([]string, len(rules))
	for i, x := range rules {
		per := "user"
		switch x.Key {
		case KeyAddress:
			per = "client address"
		case KeyArgument:
			per = x.Arg
		case KeyVariable:
			per = "{" + x.Arg + "} per user"
		}
		parts[i] = fmt.Sprintf("%d calls per %s per %s", x.Limit, x.Window, per)
		if x.Silent {
			parts[i] += " (silent)"
		}
	}
	return strings.Join(parts, ", ")
}

// PolicyName names the limit as the RateLimit headers do: what it counts
// calls by ("user", "address", or the argument's name).
func (r RateRule) PolicyName() string {
	switch r.Key {
	case KeyAddress:
		return "address"
	case KeyArgument:
		return r.Arg
	case KeyVariable:
		return "user-" + r.Arg
	}
	return "user"
}

// NoRateLimit declares an operation without its own limit.
var NoRateLimit = RateRule{none: true}

// Declared reports whether the rule was written on the declaration.
func (r RateRule) Declared() bool { return r.none || (r.Limit > 0 && r.Window > 0) }

// Limited reports whether the rule limits anything.
func (r RateRule) Limited() bool { return !r.none && r.Limit > 0 }

// Record is what the read guard loads and what the merge produces.
type Record interface {
	// RecordVersion is the structural version, published as ETag and "version".
	RecordVersion() int64
}

// Validation judges the merged record and lists every violation.
type Validation struct {
	Check func(merged Record) []Violation
	none  bool
}

// ValidateWith declares the check run on the merged record.
func ValidateWith(check func(merged Record) []Violation) Validation {
	return Validation{Check: check}
}

// NotValidated declares a read: nothing is merged, nothing to judge.
var NotValidated = Validation{none: true}

// Declared reports whether the rule was written on the declaration.
func (v Validation) Declared() bool { return v.none || v.Check != nil }

// Validates reports whether the merged record is judged.
func (v Validation) Validates() bool { return v.Check != nil }

// LockRule judges the stored record (Previous), never the merged one.
type LockRule struct {
	Locked func(previous Record, now time.Time) bool
	Reason string // fixed text for the refusal: why the record is locked
	none   bool
}

// LockWhen declares the lock predicate and the reason given when it holds.
func LockWhen(reason string, f func(previous Record, now time.Time) bool) LockRule {
	return LockRule{Locked: f, Reason: reason}
}

// NoLock declares an operation that a lock does not stop.
var NoLock = LockRule{none: true}

// Declared reports whether the rule was written on the declaration.
func (l LockRule) Declared() bool { return l.none || l.Locked != nil }

// Applies reports whether the lock is judged.
func (l LockRule) Applies() bool { return l.Locked != nil }

// Precondition says whether the caller must send back the version it read.
type Precondition int

// The preconditions. The zero value is "not declared".
const (
	preconditionUndeclared Precondition = iota
	// NoPrecondition: the write does not need the version back.
	NoPrecondition
	// RequireVersion: If-Match on HTTP, a required "version" argument on MCP.
	RequireVersion
)

// Impact is what a confirmed operation will do, shown before anything is written.
type Impact struct {
	Summary string   `json:"summary" doc:"What the call will do, in one sentence."`
	Loses   []string `json:"loses" doc:"Everything that will be lost, one item per line."`
}

// Confirmation declares the confirmation short circuit.
type Confirmation struct {
	Impact func(ctx context.Context, c *Call) (Impact, error)
	// whenLoses asks only when the impact loses something: an impact with
	// no Loses goes ahead at once, with no token (a title change, say).
	whenLoses bool
	none      bool
	because   string // why a deletion or a destructive operation asks nothing
}

// ConfirmWith declares an operation that asks before acting, describing its impact.
func ConfirmWith(impact func(ctx context.Context, c *Call) (Impact, error)) Confirmation {
	return Confirmation{Impact: impact}
}

// ConfirmWhenLoses declares an operation that asks before acting only when
// its impact loses something (Impact.Loses is not empty); a call that loses
// nothing acts at once, on both faces alike. For an operation whose calls
// range from harmless to destructive: asking for every one of them teaches
// a caller to confirm without reading.
func ConfirmWhenLoses(impact func(ctx context.Context, c *Call) (Impact, error)) Confirmation {
	return Confirmation{Impact: impact, whenLoses: true}
}

// OnlyWhenLoses reports whether the operation asks only when its impact
// loses something.
func (c Confirmation) OnlyWhenLoses() bool { return c.whenLoses }

// NoConfirm declares an operation that acts without asking. A DELETE, or
// an operation hinted destructive, may not: it asks, or says why not with
// NoConfirmBecause.
var NoConfirm = Confirmation{none: true}

// NoConfirmBecause declares a deletion or a destructive operation that
// acts without asking, and why asking would protect nothing (the change is
// made against the version the caller read and undone by another call,
// say). The reason is printed in the guard matrix and the API reference.
func NoConfirmBecause(reason string) Confirmation {
	return Confirmation{none: true, because: reason}
}

// Because is the reason given by NoConfirmBecause; "" otherwise.
func (c Confirmation) Because() string { return c.because }

// Declared reports whether the rule was written on the declaration.
func (c Confirmation) Declared() bool { return c.none || c.Impact != nil }

// Asks reports whether the operation asks for confirmation.
func (c Confirmation) Asks() bool { return c.Impact != nil }

// Idempotency declares whether the operation is a creation, whose repeat is
// recognised by its key and answered by replaying the first result.
type Idempotency struct {
	// Replay rebuilds the answer from the id the first call created.
	Replay func(ctx context.Context, c *Call, createdID string) (any, error)
	none   bool
}

// CreationReplayedBy declares a creation and how its answer is rebuilt.
func CreationReplayedBy(replay func(ctx context.Context, c *Call, createdID string) (any, error)) Idempotency {
	return Idempotency{Replay: replay}
}

// NotACreation declares an operation that names what it changes.
var NotACreation = Idempotency{none: true}

// Declared reports whether the rule was written on the declaration.
func (i Idempotency) Declared() bool { return i.none || i.Replay != nil }

// Creation reports whether keys apply.
func (i Idempotency) Creation() bool { return i.Replay != nil }

// Created is implemented by the output of a creation: the id it made.
type Created interface{ CreatedID() string }

// Versioned is implemented by outputs that publish the structural version.
type Versioned interface{ ResourceVersion() int64 }

// Tagged is implemented by outputs that know their entity tag before they
// are written: a public read kept by its record's revision, say. The HTTP
// face sends the tag as a strong ETag, lets caches keep the answer only
// while they revalidate it (Cache-Control: no-cache), and answers 304 to
// an If-None-Match naming it without writing the answer at all: a Page or
// Download that renders in WritePage or WriteFile is then never rendered.
// An empty tag is no tag.
type Tagged interface{ EntityTag() string }

// Located is implemented by outputs that have an address (Location header).
type Located interface{ ResourceLocation() string }

// Hints are the MCP tool annotations. All four are always written on the
// wire; the coverage walk checks them against the declaration.
type Hints struct {
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
}

// File is an uploaded file, as the HTTP face received it.
type File struct {
	Name        string // the client's file name
	ContentType string
	Size        int64
	Open        func() (io.ReadCloser, error)

	sum *fileSum // set by NewFile: the fingerprint, computed once
}

type fileSum struct {
	once sync.Once
	sum  string
	err  error
}

// NewFile is an uploaded file whose Fingerprint is computed once however
// many guards ask for it: each asking would read the whole upload again.
func NewFile(name, contentType string, size int64, open func() (io.ReadCloser, error)) File {
	return File{Name: name, ContentType: contentType, Size: size, Open: open, sum: &fileSum{}}
}

// Fingerprint is the SHA-256 (hex) of the file's name, media type and
// content: what makes two uploads the same file. It is computed once for a
// file made by NewFile, and on every call for one written as a literal.
func (f File) Fingerprint() (string, error) {
	if f.sum == nil {
		return f.fingerprint()
	}
	f.sum.once.Do(func() { f.sum.sum, f.sum.err = f.fingerprint() })
	return f.sum.sum, f.sum.err
}

func (f File) fingerprint() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%q %q\n", f.Name, f.ContentType)
	if f.Open != nil {
		r, err := f.Open()
		if err != nil {
			return "", fmt.Errorf("digest: open %s: %w", f.Name, err)
		}
		defer r.Close()
		if _, err := io.Copy(h, r); err != nil {
			return "", fmt.Errorf("digest: read %s: %w", f.Name, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Streamer is implemented by outputs that are event streams: the HTTP face
// serves them as server-sent events. An operation answering one is never a
// tool (a tool answers one document).
type Streamer interface {
	Stream(ctx context.Context, send func(StreamEvent) error) error
}

// StreamEvent is one event of a stream: its type, its data (sent as
// JSON) and, when the stream can resume after it, its id (Call.LastEventID
// of the reconnection). An event without a type is a keep-alive comment.
type StreamEvent struct {
	ID    string
	Event string
	Data  any
}

// ErrNothingToFollow is what a stream answers, before sending anything,
// to a reconnection after its last event when nothing has happened since
// and nothing more will: the HTTP face answers 204, which tells a browser's
// EventSource to stop reconnecting.
var ErrNothingToFollow = errors.New("nothing to follow")

// EventTypes is implemented by stream outputs that document their events:
// each type and what its data says, for the API reference.
type EventTypes interface {
	EventTypes() []EventType
}

// EventType documents one type of a stream's events.
type EventType struct {
	Name string
	Doc  string
}

// Download is implemented by outputs that are files: the HTTP face sends
// them as they are. An operation answering one is never a tool.
type Download interface {
	ContentType() string
	FileName() string
	WriteFile(w io.Writer) error
}

// Page is implemented by outputs that are documents a person's browser
// shows (the page a mailed sign-in link opens): the HTTP face sends them
// inline, as HTML, under a policy that lets them load nothing from
// elsewhere. An operation answering one is never a tool.
type Page interface {
	WritePage(w io.Writer) error
}

// ThirdParty is implemented by outputs that carry text written by third
// parties (route titles, place and accommodation names): the MCP face marks
// such results as data at its one mapping point, so a model never reads
// them as instructions.
type ThirdParty interface{ CarriesThirdPartyText() }
