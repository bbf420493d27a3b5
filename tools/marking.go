package tools

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"cairn.dev/cairn/registry"
)

// Marking third-party text as data is a rule of this face, not something
// an output opts into. Every field of a tool's output that carries text
// (a string, a list or map of them, or any value) is classified by its
// struct tag:
//
//	text:"third-party"  written by someone else: a provider's route title,
//	                    a place or accommodation name, an address, an alert
//	                    quoting them;
//	text:"own"          written by this server (wording, codes, addresses
//	                    of its own).
//
// A field without the tag is the server's own only when its JSON name says
// so (ownName: an id, a code, a type, a status, a date, an address of this
// server, a note). Any other is unclassified and counted as third-party:
// a result that can carry one is marked. TextFields lets a test fail on
// every unclassified field of a registry's tools.

// TextTag is the struct tag classifying the text of an output field.
const TextTag = "text"

// The classes of TextTag.
const (
	ThirdPartyText = "third-party"
	OwnText        = "own"
)

// ownName matches the JSON names of fields whose text the server writes:
// a whole word or a camel-case last word such as "osmType" or "startDate".
var ownName = regexp.MustCompile(`^(?:[a-z][A-Za-z0-9]*(?:Id|Ids|Type|Types|Url|Date|Status|Code|Kind|Note|Token)|id|ids|type|types|url|date|status|code|kind|note|next|token|version)$`)

// TextField is one text-carrying field of an output type.
type TextField struct {
	Path  string // JSON path from the output, e.g. "days.accommodation"
	Class string // ThirdPartyText, OwnText, or "" when unclassified
}

// TextFields lists every text-carrying field reachable from t, classified.
func TextFields(t reflect.Type) []TextField {
	var out []TextField
	walkText(t, "", "", map[reflect.Type]bool{}, &out)
	slices.SortFunc(out, func(a, b TextField) int { return strings.Compare(a.Path, b.Path) })
	return slices.CompactFunc(out, func(a, b TextField) bool { return a == b })
}

func walkText(t reflect.Type, path, class string, seen map[reflect.Type]bool, out *[]TextField) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		if path == "" {
			path = "."
		}
		if class == "" && ownName.MatchString(path[strings.LastIndex(path, ".")+1:]) {
			class = OwnText
		}
		*out = append(*out, TextField{Path: path, Class: class})
	case reflect.Struct:
		if seen[t] || t.PkgPath() == "time" {
			return // a time is written by the server, as RFC 3339
		}
		seen[t] = true
		defer delete(seen, t)
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || (!f.IsExported() && !f.Anonymous) {
				continue
			}
			fc := class
			if c := f.Tag.Get(TextTag); c != "" {
				fc = c
			}
			if f.Anonymous && name == "" {
				walkText(f.Type, path, fc, seen, out)
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			walkText(f.Type, p, fc, seen, out)
		}
	}
}

// carriesThirdParty caches, per output type, whether its results are
// marked: computed once, asked on every call.
var carriesThirdParty sync.Map // reflect.Type → bool

// marksData reports whether a result of out's type is marked as data: it
// can carry a field classified third-party or not classified at all, or
// it declares registry.ThirdParty.
func marksData(out any) bool {
	if _, ok := out.(registry.ThirdParty); ok {
		return true
	}
	t := reflect.TypeOf(out)
	if t == nil {
		return false
	}
	if v, ok := carriesThirdParty.Load(t); ok {
		return v.(bool)
	}
	marked := slices.ContainsFunc(TextFields(t), func(f TextField) bool { return f.Class != OwnText })
	carriesThirdParty.Store(t, marked)
	return marked
}
