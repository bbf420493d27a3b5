package guards

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"cairn.dev/cairn/registry"
)

// nulReason is what a refusal says of a text holding a NUL character:
// neither engine stores one (PostgreSQL refuses it outright), so it is
// refused by name on every operation before anything is read or written.
const nulReason = "must not contain the NUL character (\\u0000)"

// nulViolations names every argument whose text holds a NUL character,
// nested values by their dotted path. JSON can only carry a NUL escaped, so
// arguments without the escape are passed over unread.
func nulViolations(args map[string]json.RawMessage) []registry.Violation {
	var out []registry.Violation
	for name, raw := range args {
		if strings.ContainsRune(name, 0) {
			out = append(out, registry.Violation{Field: registry.Clip(strings.ReplaceAll(name, "\x00", "\\u0000")), Reason: nulReason})
			continue
		}
		if !bytes.Contains(raw, []byte(`\u0000`)) {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue // the schema check names it
		}
		out = append(out, nulIn(name, v)...)
	}
	return out
}

func nulIn(path string, v any) []registry.Violation {
	switch x := v.(type) {
	case string:
		if strings.ContainsRune(x, 0) {
			return []registry.Violation{{Field: registry.Clip(path), Reason: nulReason}}
		}
	case []any:
		var out []registry.Violation
		for i, e := range x {
			out = append(out, nulIn(path+"."+strconv.Itoa(i), e)...)
		}
		return out
	case map[string]any:
		var out []registry.Violation
		for k, e := range x {
			if strings.ContainsRune(k, 0) {
				out = append(out, registry.Violation{Field: registry.Clip(path + "." + strings.ReplaceAll(k, "\x00", "\\u0000")), Reason: nulReason})
				continue
			}
			out = append(out, nulIn(path+"."+k, e)...)
		}
		return out
	}
	return nil
}
