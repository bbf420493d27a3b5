package guards_test

import (
	"bytes"
	"encoding/json"
	"sort"
	"testing"

	"cairn.dev/cairn/guards"
)

// FuzzCanonical: the canonical form of any JSON value is valid JSON and its
// own canonical form (idempotent), and an object written with its keys in
// another order, or spaced otherwise, has the same canonical form.
func FuzzCanonical(f *testing.F) {
	for _, seed := range []string{
		`{"b":1,"a":2}`, `{"z":{"y":[{"d":1,"c":2}],"x":null}}`, `{ "a" : [ 1 , 2 ] }`, `{"a":1.0,"b":1e0,"c":10}`,
		`[3,1,2]`, `{"a":"\u00e9\"<>&"}`, ``, `-0`, `1e400`, `{"a":1,"a":2}`, `"\ud800"`, `{"k":12345678901234567890}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		canon, err := guards.Canonical(raw)
		if err != nil {
			return // not JSON, or a number no float holds: refused, never hashed
		}
		if !json.Valid(canon) {
			t.Fatalf("canonical form %q of %q is not JSON", canon, raw)
		}
		again, err := guards.Canonical(canon)
		if err != nil || !bytes.Equal(again, canon) {
			t.Fatalf("not idempotent: %q gives %q, then %q (%v)", raw, canon, again, err)
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if dec.Decode(&v) != nil {
			return
		}
		var reordered bytes.Buffer
		writeReversed(&reordered, v)
		other, err := guards.Canonical(reordered.Bytes())
		if err != nil || !bytes.Equal(other, canon) {
			t.Fatalf("order-sensitive: %q gives %q, its keys reversed %q give %q (%v)", raw, canon, reordered.Bytes(), other, err)
		}
	})
}

// writeReversed writes v as JSON with every object's keys in reverse order
// and spaces between tokens.
func writeReversed(buf *bytes.Buffer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Sort(sort.Reverse(sort.StringSlice(keys)))
		buf.WriteString("{ ")
		for i, k := range keys {
			if i > 0 {
				buf.WriteString(" , ")
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteString(" : ")
			writeReversed(buf, x[k])
		}
		buf.WriteString(" }")
	case []any:
		buf.WriteString("[ ")
		for i, e := range x {
			if i > 0 {
				buf.WriteString(" , ")
			}
			writeReversed(buf, e)
		}
		buf.WriteString(" ]")
	case json.Number:
		buf.WriteString(x.String())
	default:
		b, _ := json.Marshal(x)
		buf.Write(b)
	}
}
