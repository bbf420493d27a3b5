package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The text content of a result is a compact rendering of its structured
// content, not the same JSON again: a model reads one or the other, and
// JSON repeated inside a JSON string pays for every quote twice. The
// rendering keeps every field and value:
//
//	key: value                 a scalar (strings as they are, quoted as JSON
//	                           only when empty, when they hold a newline or
//	                           a separator, or would read as a number)
//	key:                       an object, its fields indented below
//	key: [a, b]                a list of scalars
//	key: 30 rows               a list of objects, as a table: one header of
//	  id | distance | end.lat  columns (nested objects flattened with dots),
//	  s1 | 80.5 | 43.6         then one line per object; an empty cell is an
//	                           absent field, [] an empty list
//
// Key order is the order of the structured content.
//
// A rendering longer than TextBudget would cost more than the structured
// content it repeats: the text then keeps every field but says of each list
// of objects only how many rows it has and that they are in the structured
// content ("days: 30 rows, in structuredContent").

// TextBudget is the longest full rendering sent as text content.
const TextBudget = 2048

// field is one member of a JSON object, in document order.
type field struct {
	key string
	val any // json.Number, string, bool, nil, []field (object) or []any
}

// render writes the compact text of a JSON document, within budget bytes
// when the full rendering would exceed it and a summary does not.
func render(raw []byte, budget int) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return "", err
	}
	full := renderValue(v, false)
	if len(full) <= budget {
		return full, nil
	}
	return renderValue(v, true), nil
}

func renderValue(v any, summary bool) string {
	var b strings.Builder
	r := renderer{b: &b, summary: summary}
	if obj, ok := v.([]field); ok {
		r.object(obj, "")
	} else {
		r.value("result", v, "")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// renderer writes one rendering; summary leaves lists of objects to the
// structured content.
type renderer struct {
	b       *strings.Builder
	summary bool
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := []field{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, field{key: k.(string), val: v})
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil
	}
}

func (r renderer) object(obj []field, indent string) {
	for _, f := range obj {
		r.value(f.key, f.val, indent)
	}
}

func (r renderer) value(key string, v any, indent string) {
	b := r.b
	switch x := v.(type) {
	case []field:
		if len(x) == 0 {
			fmt.Fprintf(b, "%s%s: {}\n", indent, key)
			return
		}
		fmt.Fprintf(b, "%s%s:\n", indent, key)
		r.object(x, indent+"  ")
	case []any:
		if rows, ok := objects(x); ok && len(rows) > 0 {
			if r.summary {
				fmt.Fprintf(b, "%s%s: %d rows, in structuredContent\n", indent, key, len(rows))
				return
			}
			fmt.Fprintf(b, "%s%s: %d rows\n", indent, key, len(rows))
			writeTable(b, rows, indent+"  ")
			return
		}
		fmt.Fprintf(b, "%s%s: %s\n", indent, key, cell(x))
	default:
		fmt.Fprintf(b, "%s%s: %s\n", indent, key, cell(x))
	}
}

// objects reports whether every element of list is an object.
func objects(list []any) ([][]field, bool) {
	rows := make([][]field, len(list))
	for i, e := range list {
		o, ok := e.([]field)
		if !ok {
			return nil, false
		}
		rows[i] = o
	}
	return rows, true
}

func writeTable(b *strings.Builder, rows [][]field, indent string) {
	var cols []string
	seen := map[string]bool{}
	flat := make([]map[string]any, len(rows))
	for i, r := range rows {
		flat[i] = map[string]any{}
		flatten(r, "", func(k string, v any) {
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
			flat[i][k] = v
		})
	}
	fmt.Fprintf(b, "%s%s\n", indent, strings.Join(cols, " | "))
	cells := make([]string, len(cols))
	for _, r := range flat {
		for j, c := range cols {
			cells[j] = ""
			if v, ok := r[c]; ok {
				cells[j] = cell(v)
			}
		}
		fmt.Fprintf(b, "%s%s\n", indent, strings.TrimRight(strings.Join(cells, " | "), " |"))
	}
}

// flatten walks an object's scalar and list fields, naming nested
// objects' fields with dots.
func flatten(obj []field, prefix string, emit func(string, any)) {
	for _, f := range obj {
		if o, ok := f.val.([]field); ok && len(o) > 0 {
			flatten(o, prefix+f.key+".", emit)
			continue
		}
		emit(prefix+f.key, f.val)
	}
}

// ambiguous reports whether a string would read as another value.
func ambiguous(s string) bool {
	switch s {
	case "null", "true", "false":
		return true
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

// cell renders a value on one line.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if x == "" || strings.ContainsAny(x, "\n\r|,=[]{}") || strings.TrimSpace(x) != x || ambiguous(x) {
			q, _ := json.Marshal(x)
			return string(q)
		}
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []field:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = f.key + "=" + cell(f.val)
		}
		return "{" + strings.Join(parts, " ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = cell(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}
