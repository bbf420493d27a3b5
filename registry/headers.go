package registry

import (
	"fmt"
	"reflect"
	"strings"
)

// Mirrored returns the spec of a tool whose argument arg a client mirrors
// in the request header Mcp-Param-<header> (MCP 2026-07-28, x-mcp-header):
// a gateway may then route or meter on it without reading the body. The
// endpoint refuses a call whose header and argument disagree, before any
// guard runs: the argument stays what the guards judge. Only a top-level
// argument of the input holding a string, an integer or a boolean can be
// mirrored, on a tool that groups no operations.
func (t ToolSpec) Mirrored(arg, header string) ToolSpec {
	h := make(map[string]string, len(t.Headers)+1)
	for k, v := range t.Headers {
		h[k] = v
	}
	h[arg] = header
	t.Headers = h
	return t
}

// headerProblems judges the arguments a tool mirrors in headers.
func headerProblems(o *Operation) []string {
	if len(o.Tool.Headers) == 0 {
		return nil
	}
	var out []string
	switch {
	case !o.Tool.IsTool():
		return []string{"only a tool's arguments are mirrored in headers"}
	case o.Tool.Action != "":
		out = append(out, "a tool grouping several operations mirrors no argument in a header")
	case len(o.InputSchema) > 0:
		out = append(out, "an operation stating its input schema writes x-mcp-header in it")
	}
	seen := map[string]string{}
	for arg, header := range o.Tool.Headers {
		switch k := fieldKind(o.InputType, arg); k {
		case reflect.Invalid:
			out = append(out, fmt.Sprintf("the mirrored argument %q is not a field of the input", arg))
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			out = append(out, fmt.Sprintf("the mirrored argument %q holds a %s: only a string, an integer or a boolean fits a header", arg, k))
		}
		if header == "" || strings.IndexFunc(header, func(r rune) bool { return !isTChar(r) }) >= 0 {
			out = append(out, fmt.Sprintf("header name %q of argument %s is not an HTTP token", header, arg))
		}
		if other, ok := seen[strings.ToLower(header)]; ok {
			out = append(out, fmt.Sprintf("arguments %s and %s are mirrored in the same header %s", other, arg, header))
		}
		seen[strings.ToLower(header)] = arg
	}
	return out
}

// fieldKind is the kind of the input field published as name (a pointer
// followed); Invalid when no field is.
func fieldKind(t reflect.Type, name string) reflect.Kind {
	if t == nil || t.Kind() != reflect.Struct {
		return reflect.Invalid
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && tag == "" {
			if k := fieldKind(f.Type, name); k != reflect.Invalid {
				return k
			}
			continue
		}
		if f.IsExported() && (tag == name || (tag == "" && f.Name == name)) {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			return ft.Kind()
		}
	}
	return reflect.Invalid
}

// isTChar reports whether r may appear in an HTTP token (RFC 9110 §5.6.2).
func isTChar(r rune) bool {
	switch {
	case r >= '0' && r <= '9', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
