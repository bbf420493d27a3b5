package guards

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"cairn.dev/cairn/registry"
)

// nulReason is what a refusal says of a text holding a NUL character:
// neither engine stores one (PostgreSQL refuses it outright), so it is
// refused by name on every operation before anything is read or written.
const nulReason = "must not contain the NUL character (\\u0000)"

// hiddenReason is what a refusal says of a text holding another character
// of the one text rule (registry.Refused): a control character, a byte
// order mark or a bidirectional control, which a reader does not see or
// sees reordered. It names the first one, as an escape, never the text.
func hiddenReason(r rune) string {
	return fmt.Sprintf("must not contain control or bidirectional formatting characters (found U+%04X)", r)
}

// textViolations names every argument whose text (a value, or a key of an
// object) breaks the one text rule, nested values by their dotted path.
// JSON carries the C0 controls only escaped, and the others as an escape
// or as bytes past ASCII: arguments with neither are passed over unread.
func textViolations(args map[string]json.RawMessage) []registry.Violation {
	var out []registry.Violation
	for name, raw := range args {
		if reason := textReason(name); reason != "" {
			out = append(out, registry.Violation{Field: registry.Clip(escaped(name)), Reason: reason})
			continue
		}
		if !bytes.Contains(raw, []byte(`\u`)) && !pastASCII(raw) {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue // the schema check names it
		}
		out = append(out, textIn(name, v)...)
	}
	return out
}

// textReason is why s breaks the text rule, or "".
func textReason(s string) string {
	for _, r := range s {
		switch {
		case r == 0:
			return nulReason
		case registry.Refused(r):
			return hiddenReason(r)
		}
	}
	return ""
}

// escaped writes a name's refused characters as escapes, so a refusal
// naming it carries none of them.
func escaped(name string) string {
	var b strings.Builder
	for _, r := range name {
		if registry.Refused(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func pastASCII(raw []byte) bool {
	for _, c := range raw {
		if c >= 0x7F {
			return true
		}
	}
	return false
}

func textIn(path string, v any) []registry.Violation {
	switch x := v.(type) {
	case string:
		if reason := textReason(x); reason != "" {
			return []registry.Violation{{Field: registry.Clip(path), Reason: reason}}
		}
	case []any:
		var out []registry.Violation
		for i, e := range x {
			out = append(out, textIn(path+"."+strconv.Itoa(i), e)...)
		}
		return out
	case map[string]any:
		var out []registry.Violation
		for k, e := range x {
			if reason := textReason(k); reason != "" {
				out = append(out, registry.Violation{Field: registry.Clip(path + "." + escaped(k)), Reason: reason})
				continue
			}
			out = append(out, textIn(path+"."+k, e)...)
		}
		return out
	}
	return nil
}
