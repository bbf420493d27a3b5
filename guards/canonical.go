package guards

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"cairn.dev/cairn/registry"
)

// Canonical renders a JSON value with object keys sorted recursively and no
// insignificant space, so a retry that reorders keys hashes the same. One
// canonicaliser serves idempotency and confirmation alike.
func Canonical(raw json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("null"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := writeCanonical(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeCanonical(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			if err := writeCanonical(buf, x[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeCanonical(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	case json.Number:
		// 1, 1.0 and 1e0 are one number: render its float form.
		f, err := x.Float64()
		if err != nil {
			return err
		}
		buf.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	default:
		b, err := json.Marshal(x)
		if err != nil {
			return fmt.Errorf("canonical: %w", err)
		}
		buf.Write(b)
	}
	return nil
}

// Digest fingerprints what a call asks for: the operation, its URI
// variables, its arguments, the files it uploads (by content) and the
// version it expects, in canonical form. Two calls with the same digest ask
// for the same thing: an upload repeating its key with another file is
// another request.
func Digest(c *registry.Call) (string, error) {
	doc := map[string]any{"op": c.Op.ID, "vars": c.Vars, "args": c.Args}
	if c.ExpectedVersion != nil {
		doc["version"] = *c.ExpectedVersion
	}
	if len(c.Files) > 0 {
		files := map[string]string{}
		for name, f := range c.Files {
			sum, err := f.Fingerprint() // the rate limit's replay and the key both ask
			if err != nil {
				return "", err
			}
			files[name] = sum
		}
		doc["files"] = files
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	canon, err := Canonical(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}
