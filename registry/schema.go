package registry

import (
	"fmt"
	"path"
	"reflect"
	"strings"
	"unicode"
)

// SchemaName is the name under which both faces publish the schema of a
// named Go type: its package's name, then its own (TripsCreateInput,
// NotesCreateInput), so two modules may each have a CreateInput. A generic
// type's arguments are named the same way, without their packages. An
// unnamed type takes hint, the name its place suggests.
func SchemaName(t reflect.Type, hint string) string {
	name := t.Name()
	if name == "" {
		return hint
	}
	if i := strings.IndexByte(name, '['); i >= 0 { // Page[cairn.dev/x/trips.Summary]
		args := strings.Split(strings.TrimSuffix(name[i+1:], "]"), ",")
		name = name[:i]
		for _, a := range args {
			name += upperFirst(a[strings.LastIndexAny(a, "./")+1:])
		}
	}
	return camel(path.Base(t.PkgPath())) + camel(name)
}

// camel joins the letter-and-digit runs of s, each capitalised.
func camel(s string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		b.WriteString(upperFirst(part))
	}
	return b.String()
}

func upperFirst(s string) string {
	for i, r := range s {
		return string(unicode.ToUpper(r)) + s[i+len(string(r)):]
	}
	return s
}

// schemaUse remembers which type first took a schema name, and where.
type schemaUse struct {
	t  reflect.Type
	op string
}

// schemaClashes records every named struct type op publishes (input,
// output, and what they hold) and reports a name another type already took.
func schemaClashes(seen map[string]schemaUse, o *Operation) []string {
	var out []string
	visited := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || visited[t] || t.PkgPath() == "time" {
			return
		}
		visited[t] = true
		if t.Name() != "" {
			name := SchemaName(t, "")
			if prev, ok := seen[name]; ok && prev.t != t {
				out = append(out, fmt.Sprintf("schema name %s of %s clashes with %s used by %s", name, t, prev.t, prev.op))
			} else if !ok {
				seen[name] = schemaUse{t: t, op: o.ID}
			}
		}
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				walk(f.Type)
			}
		}
	}
	walk(o.InputType)
	walk(o.OutputType)
	return out
}
