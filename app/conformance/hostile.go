package conformance

import (
	"fmt"
	"math"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/tools"
)

// The hostile checks Exercise runs beside the guards' scenarios, each as a
// subtest named after the operation and the check.
const (
	// HostileFields: every field of the record a write changes
	// (Operation.RecordType) that its input does not publish is refused by
	// name, under each name a caller may guess (its JSON name, its camel
	// case, its column), by batches of half registry.MaxViolations at once,
	// on both faces.
	HostileFields = "hostile-fields"
	// HostileText: every text argument (a string field of the input) is
	// sent holding a NUL character, each of BEL, ESC and U+202E (the one
	// text rule, registry.Refused), 100 KB long, and as a long value a
	// refusal might quote. The NUL and the other hidden characters are
	// refused by name; the others are refused by name or accepted, and no
	// refusal quotes more than registry.MaxQuote runes of what was sent.
	HostileText = "hostile-text"
	// HostilePaging: a listing asked for a page no store can reach (page
	// 9223372036854775807, and the first page whose offset overflows 64
	// bits at the page size) is refused with 422 naming page on both
	// faces, never sent to a store, where it overflows OFFSET (a 500 on
	// PostgreSQL) or wraps (page 1 on SQLite); the last page
	// registry.MaxOffset allows still answers.
	HostilePaging = "hostile-paging"
	// HostileEcho: a call sent with EchoKeys unpublished arguments is
	// refused listing at most registry.MaxViolations of them and counting
	// the rest (moreViolations), within MaxEcho bytes, on both faces: no
	// request makes a refusal many times its own size. A form of that many
	// parts may instead be refused unread (400), within the same bound.
	HostileEcho = "hostile-echo"
)

// EchoKeys is how many unpublished arguments the hostile-echo check sends.
const EchoKeys = 2000

// MaxEcho bounds the refusal of the hostile-echo check, in bytes.
const MaxEcho = 32 << 10

// HugeText is the length of the long text the hostile-text check sends.
const HugeText = 100 << 10

// Hostile lists the hostile checks that apply to op.
func Hostile(op *registry.Operation) []string {
	var out []string
	if len(unpublishedFields(op)) > 0 {
		out = append(out, HostileFields)
	}
	if len(textArguments(op.InputType)) > 0 {
		out = append(out, HostileText)
	}
	if op.Paging.Lists() {
		out = append(out, HostilePaging)
	}
	return append(out, HostileEcho)
}

func (s *scenario) hostileEcho() {
	for _, f := range s.faces() {
		r := clone(s.valid(s.u))
		r.Args = cloneMap(r.Args)
		if r.Args == nil {
			r.Args = map[string]any{}
		}
		for i := range EchoKeys {
			r.Args[fmt.Sprintf("unpublished%04d", i)] = strings.Repeat("v", 40)
		}
		if s.op.Idempotency.Creation() {
			r.Key = newKey()
		}
		out := s.send(f, r)
		where := fmt.Sprintf("%s, %s", s.op.ID, faceName(f))
		require.LessOrEqual(s.t, len(out.Raw), MaxEcho, "%s: the refusal of %d unpublished arguments is at most %d bytes", where, EchoKeys, MaxEcho)
		if out.Type == problem(registry.KindMalformed) {
			continue // a form of that many parts is not read at all (multipart's own bound)
		}
		require.Equal(s.t, problem(registry.KindInvalid), out.Type, "%s: %d unpublished arguments are refused: %d %.300s", where, EchoKeys, out.Status, out.Raw)
		require.LessOrEqual(s.t, len(fields(out.Body)), registry.MaxViolations, "%s: at most %d violations are listed", where, registry.MaxViolations)
		more, _ := out.Body["moreViolations"].(float64)
		require.GreaterOrEqual(s.t, int(more)+len(fields(out.Body)), EchoKeys, "%s: the others are counted in moreViolations: %.300s", where, out.Raw)
	}
}

func (s *scenario) hostilePaging() {
	for _, f := range s.faces() {
		base := s.valid(s.u)
		size := int64(s.op.Paging.Default)
		if n, ok := base.Args["itemsPerPage"].(int); ok {
			size = int64(n)
		}
		ask := func(page int64) apptest.Outcome {
			r := clone(base)
			if r.Args == nil {
				r.Args = map[string]any{}
			}
			r.Args["page"] = page
			return s.send(f, r)
		}
		for _, page := range []int64{math.MaxInt64, math.MaxInt64/size + 1} {
			out := ask(page)
			require.Equal(s.t, http.StatusUnprocessableEntity, out.Status, "%s, %s: page %d is refused: %s", s.op.ID, faceName(f), page, s.a.Explain(out))
			require.Contains(s.t, fields(out.Body), "page", "%s, %s: the refusal of page %d names page: %s", s.op.ID, faceName(f), page, out.Raw)
		}
		last := ask(registry.MaxOffset/size + 1)
		require.Less(s.t, last.Status, 300, "%s, %s: the last page a listing has answers: %s", s.op.ID, faceName(f), s.a.Explain(last))
	}
}

// Attack runs one hostile check for one operation (what Exercise runs in a subtest).
func Attack(t testing.TB, a *apptest.App, fx Fixtures, op *registry.Operation, check string) {
	t.Helper()
	run(t, a, fx, op, check, nil)
}

// reservedOnMCP are the argument names the MCP face reads itself.
var reservedOnMCP = []string{tools.ArgVersion, tools.ArgIdempotencyKey, tools.ArgConfirmationToken, tools.ArgAction}

// unpublishedFields names the record fields of a write that its input does
// not publish, under every name a caller may guess for them, sorted.
func unpublishedFields(op *registry.Operation) []string {
	if !op.Writes() || op.RecordType == nil {
		return nil
	}
	published := map[string]bool{}
	for _, f := range fieldsOf(op.InputType) {
		published[jsonName(f)] = true
	}
	for _, v := range op.URIVariables() {
		published[v] = true // named by the path, judged by the owner rule
	}
	var out []string
	for _, f := range fieldsOf(op.RecordType) {
		for _, n := range guesses(f) {
			if !published[n] && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// fieldsOf lists the exported fields of a struct type, those of embedded
// structs in their place, as encoding/json sees them.
func fieldsOf(t reflect.Type) []reflect.StructField {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Tag.Get("json") == "-" {
			continue
		}
		if f.Anonymous && f.Tag.Get("json") == "" {
			out = append(out, fieldsOf(f.Type)...)
			continue
		}
		if f.IsExported() {
			out = append(out, f)
		}
	}
	return out
}

func jsonName(f reflect.StructField) string {
	if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n != "" {
		return n
	}
	return f.Name
}

// guesses are the names a caller may try for a record field: its JSON name,
// its Go name in lower camel case (userId, sourceUrl) and its column.
func guesses(f reflect.StructField) []string {
	out := []string{jsonName(f), lowerCamel(f.Name)}
	if col, _, _ := strings.Cut(f.Tag.Get("bun"), ","); col != "" && !strings.Contains(col, ":") {
		out = append(out, col)
	}
	return out
}

// lowerCamel writes a Go name as JSON usually spells it: UserID → userId,
// SourceURL → sourceUrl, ETA → eta.
func lowerCamel(name string) string {
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		upperRun := i > 0 && unicode.IsUpper(r[i-1]) && unicode.IsUpper(c) &&
			(i+1 == len(r) || unicode.IsUpper(r[i+1]))
		if i == 0 || upperRun || (i+1 == len(r) && unicode.IsUpper(r[i-1])) {
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// textArguments names the input's text arguments: its string fields.
func textArguments(t reflect.Type) []string {
	var out []string
	for _, f := range fieldsOf(t) {
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.String {
			out = append(out, jsonName(f))
		}
	}
	return out
}

func (s *scenario) hostileFields() {
	names := unpublishedFields(s.op)
	// Sent by batches a refusal lists whole (it lists at most
	// registry.MaxViolations), each batch at once.
	const batch = registry.MaxViolations / 2
	for _, f := range s.faces() {
		for start := 0; start < len(names); start += batch {
			var sent []string
			r := s.valid(s.u)
			r.Args = cloneMap(r.Args)
			if r.Args == nil {
				r.Args = map[string]any{}
			}
			if s.op.Idempotency.Creation() {
				r.Key = newKey()
			}
			for _, n := range names[start:min(start+batch, len(names))] {
				if f == viaMCP && slices.Contains(reservedOnMCP, n) {
					continue // an argument of the face itself there
				}
				r.Args[n] = "x"
				sent = append(sent, n)
			}
			if len(sent) == 0 {
				continue
			}
			out := s.send(f, r)
			require.Equal(s.t, problem(registry.KindInvalid), out.Type, "%s, %s: the record's unpublished fields are refused: %d %s", s.op.ID, faceName(f), out.Status, s.a.Explain(out))
			got := fields(out.Body)
			for _, n := range sent {
				require.Contains(s.t, got, registry.Clip(n), "%s, %s: the record's field %s is refused by name, never dropped or written", s.op.ID, faceName(f), n)
			}
		}
	}
}

// echo is a text of n runes no run of registry.MaxQuote+1 of which repeats,
// so that a quote longer than that is found wherever it starts.
func echo(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "e%04d", i)
	}
	return b.String()[:n]
}

// quotesMore reports whether raw holds more than registry.MaxQuote
// consecutive runes of the ASCII text v.
func quotesMore(raw []byte, v string) bool {
	for i := 0; i+registry.MaxQuote+1 <= len(v); i++ {
		if strings.Contains(string(raw), v[i:i+registry.MaxQuote+1]) {
			return true
		}
	}
	return false
}

func (s *scenario) hostileText() {
	long := echo(3 * registry.MaxQuote)
	huge := echo(HugeText)
	for _, field := range textArguments(s.op.InputType) {
		// A user per argument: the limits count this operation's calls.
		u := s.user(s.a.Server.Registry.Scopes())
		for _, f := range s.faces() {
			base := s.valid(u)
			probe := func(value string) apptest.Outcome {
				r := clone(base)
				if r.Args == nil {
					r.Args = map[string]any{}
				}
				r.Args[field] = value
				if s.op.Idempotency.Creation() {
					r.Key = newKey()
				}
				out := s.send(f, r)
				if out.Status < 300 {
					base = s.valid(u) // it acted: the next probe needs a fresh valid call
				}
				return out
			}
			where := fmt.Sprintf("%s, %s, %s", s.op.ID, faceName(f), field)

			nul := probe("a\x00b")
			require.Equal(s.t, http.StatusUnprocessableEntity, nul.Status, "%s: a NUL character is refused: %s", where, s.a.Explain(nul))
			require.Contains(s.t, fields(nul.Body), field, "%s: the NUL's refusal names the argument: %s", where, s.a.Explain(nul))
			for _, hidden := range []string{"a\ab", "\x1b[31mred", "abc\u202egpj.exe"} {
				out := probe(hidden)
				require.Equal(s.t, http.StatusUnprocessableEntity, out.Status, "%s: %q breaks the one text rule and is refused: %s", where, hidden, s.a.Explain(out))
				require.Contains(s.t, fields(out.Body), field, "%s: the refusal of %q names the argument: %s", where, hidden, s.a.Explain(out))
			}

			big := probe(huge)
			switch {
			case big.Status < 300:
				require.NotContains(s.t, string(big.Raw), huge, "%s: a 100 KB text accepted is not answered back whole", where)
			case big.Type == operations.ConfirmationType:
				require.False(s.t, quotesMore(big.Raw, huge), "%s: a confirmation quotes at most %d runes of a 100 KB text: %.300s", where, registry.MaxQuote, big.Raw)
			default:
				require.Contains(s.t, fields(big.Body), field, "%s: a 100 KB text is refused by name: %d %.300s", where, big.Status, big.Raw)
				require.False(s.t, quotesMore(big.Raw, huge), "%s: the refusal quotes at most %d runes of a 100 KB text: %.300s", where, registry.MaxQuote, big.Raw)
			}

			quoted := probe(long)
			if quoted.Status >= 400 {
				require.False(s.t, quotesMore(quoted.Raw, long), "%s: an answer quotes at most %d runes of what was sent: %s", where, registry.MaxQuote, quoted.Raw)
			}
			if quoted.Status >= 400 && quoted.Type == problem(registry.KindInvalid) {
				require.Contains(s.t, fields(quoted.Body), field, "%s: the refusal names the argument: %s", where, quoted.Raw)
			}
		}
	}
}

func faceName(f face) string {
	if f == viaHTTP {
		return "HTTP"
	}
	return "MCP"
}

// requestIDMember is a problem body's request id: each request has its own,
// so two answers compare equal without it.
var requestIDMember = regexp.MustCompile(`,?"requestId":"(?:[^"\\]|\\.)*"`)

// unstamped is a raw answer without its request id.
func unstamped(raw []byte) string { return requestIDMember.ReplaceAllString(string(raw), "") }

// withoutRequestID is a decoded answer without its request id.
func withoutRequestID(body map[string]any) map[string]any {
	out := make(map[string]any, len(body))
	for k, v := range body {
		if k != "requestId" {
			out[k] = v
		}
	}
	return out
}
