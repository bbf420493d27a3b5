// Package registrytest is the coverage assertion: it walks a registry and
// checks every rule a declaration must satisfy. Product teams run it on
// their own modules, the way database drivers share a conformance suite:
//
//	func TestRegistry(t *testing.T) {
//		reg := registry.New()
//		mymodule.New(...).Declare(reg)
//		registrytest.RequireCovered(t, reg)
//	}
package registrytest

import (
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"cairn.dev/cairn/registry"
)

// Rule is one coverage rule: it returns a problem, or "" when op satisfies it.
type Rule struct {
	Name  string
	Check func(op *registry.Operation) string
}

// Rules are the coverage rules of ARCHITECTURE.md, in the order reported.
var Rules = []Rule{
	{"scope", func(op *registry.Operation) string {
		if op.Scope == "" {
			return "no scope"
		}
		return ""
	}},
	{"owner-by-uri-variable", func(op *registry.Operation) string {
		vars := op.URIVariables()
		if len(vars) > 0 && !op.Owner.ByVariable() {
			return fmt.Sprintf("addressed by %v but not authorized by URI variable", vars)
		}
		return ""
	}},
	{"validated-write", func(op *registry.Operation) string {
		if op.Writes() && hasFields(op.InputType) && !op.Validate.Validates() {
			return "a write with arguments must validate the merged record"
		}
		return ""
	}},
	{"described-arguments", func(op *registry.Operation) string {
		var missing []string
		if st := op.StatedSchema(); st != nil {
			// A stated schema is published as stated: its own words count.
			props, _ := st["properties"].(map[string]any)
			for name, p := range props {
				if d, _ := p.(map[string]any)["description"].(string); d == "" {
					missing = append(missing, name)
				}
			}
			sort.Strings(missing)
		} else {
			for _, f := range published(op.InputType) {
				if f.Tag.Get("doc") == "" {
					missing = append(missing, jsonName(f))
				}
			}
		}
		if len(missing) > 0 {
			return "arguments without a description: " + strings.Join(missing, ", ")
		}
		return ""
	}},
	{"schema-versus-record", func(op *registry.Operation) string {
		if !op.Writes() || !hasFields(op.InputType) {
			return ""
		}
		if op.RecordType == nil {
			return "a write with arguments must name the record it changes (Record)"
		}
		rec := op.RecordType
		for rec.Kind() == reflect.Pointer {
			rec = rec.Elem()
		}
		var unknown []string
		for _, f := range published(op.InputType) {
			if _, ok := rec.FieldByName(f.Name); !ok {
				unknown = append(unknown, jsonName(f))
			}
		}
		if len(unknown) > 0 {
			return fmt.Sprintf("arguments with no field on %s: %s", rec.Name(), strings.Join(unknown, ", "))
		}
		return ""
	}},
	{"exclusion-motive", func(op *registry.Operation) string {
		if !op.Tool.IsTool() && !op.Resource.IsResource() && op.Tool.Motive.String() == "none" {
			return "neither a tool, a resource nor exactly one exclusion motive"
		}
		return ""
	}},
	{"uploads-are-not-tools", func(op *registry.Operation) string {
		if op.Tool.IsTool() && len(op.HTTP.Files) > 0 {
			return "an upload cannot be a tool: a tool call carries no bytes (motive: binary or bulk payload)"
		}
		return ""
	}},
	{"public-is-read-only", func(op *registry.Operation) string {
		// The one public write is the human door: signing in or asking
		// for access, which needs a browser and a mailbox.
		door := op.Tool.Motive == registry.MotiveBrowserAndMailbox
		if op.Scope == registry.Public && ((op.Writes() && !door) || op.Tool.IsTool()) {
			return "a public operation must be a read (or a write of the human door: motive " + registry.MotiveBrowserAndMailbox.String() + ") and not a tool"
		}
		return ""
	}},
	{"downloads-are-not-tools", func(op *registry.Operation) string {
		if op.Tool.IsTool() && op.OutputType.Implements(reflect.TypeFor[registry.Download]()) {
			return "a file cannot be a tool result (motive: binary or bulk payload)"
		}
		return ""
	}},
	{"pages-are-not-tools", func(op *registry.Operation) string {
		if op.Tool.IsTool() && op.OutputType.Implements(reflect.TypeFor[registry.Page]()) {
			return "a page is for a person's browser, not a tool result (motive: needs a browser and a mailbox)"
		}
		return ""
	}},
	{"streams-are-not-tools", func(op *registry.Operation) string {
		if op.Tool.IsTool() && op.OutputType.Implements(reflect.TypeFor[registry.Streamer]()) {
			return "an event stream cannot be a tool: a tool answers one document"
		}
		return ""
	}},
	{"hints", func(op *registry.Operation) string {
		h := op.Hints
		var p []string
		if h.ReadOnly == op.Writes() {
			p = append(p, "readOnly must be true exactly when nothing is written")
		}
		if h.ReadOnly && h.Destructive {
			p = append(p, "a read-only operation cannot be destructive")
		}
		if op.Confirm.Asks() && !h.Destructive {
			p = append(p, "an operation that asks for confirmation is destructive")
		}
		if h.Idempotent && op.Dispatches {
			p = append(p, "no idempotent hint on an operation that dispatches work")
		}
		if h.Idempotent && op.Precondition == registry.RequireVersion {
			p = append(p, "no idempotent hint on an operation refused on repeat (the version moves)")
		}
		if h.Idempotent && op.Idempotency.Creation() {
			p = append(p, "no idempotent hint on a creation")
		}
		return strings.Join(p, "; ")
	}},
	{"creation-key", func(op *registry.Operation) string {
		if op.Idempotency.Creation() && !op.OutputType.Implements(reflect.TypeFor[registry.Created]()) {
			return "a creation's output must implement registry.Created so its key can point at it"
		}
		return ""
	}},
	{"accepted-dispatches", func(op *registry.Operation) string {
		// 202 tells the caller the work goes on after the answer: a write
		// that finished before answering says 200 (or 201, or 204).
		if op.HTTP.Status == http.StatusAccepted && !op.Dispatches {
			return "202 means work continues in the background: declare Dispatches, or answer 200 for a write that finishes before its answer"
		}
		return ""
	}},
}

// Failures walks reg and returns, per "operation/rule", what is wrong. An
// empty map means the registry is covered.
func Failures(reg *registry.Registry) map[string]string {
	out := map[string]string{}
	if err := reg.Check(); err != nil {
		out["registry/check"] = err.Error()
	}
	for _, op := range reg.Operations() {
		for _, r := range Rules {
			if msg := r.Check(op); msg != "" {
				out[op.ID+"/"+r.Name] = msg
			}
		}
	}
	return out
}

// RequireCovered reports one subtest per operation and rule, failing those
// the declarations break.
func RequireCovered(t *testing.T, reg *registry.Registry) {
	t.Helper()
	if len(reg.Operations()) == 0 {
		t.Fatal("the registry is empty: nothing was declared")
	}
	if err := reg.Check(); err != nil {
		t.Error(err)
	}
	for _, op := range reg.Operations() {
		for _, r := range Rules {
			t.Run(op.ID+"/"+r.Name, func(t *testing.T) {
				if msg := r.Check(op); msg != "" {
					t.Error(msg)
				}
			})
		}
	}
}

func hasFields(t reflect.Type) bool { return len(published(t)) > 0 }

// published lists the struct fields that appear as JSON arguments.
func published(t reflect.Type) []reflect.StructField {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("json") == "" {
			out = append(out, published(f.Type)...) // promoted, as encoding/json does
			continue
		}
		if !f.IsExported() || jsonName(f) == "-" {
			continue
		}
		out = append(out, f)
	}
	return out
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}
