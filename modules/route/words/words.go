// Package words holds what the trip planner says to people, in every
// language it speaks: alert messages, action labels, weather, what a
// computation found or why it could not look, the share page and the
// exports. A text is a key and its arguments, rendered in a language when
// it is read, so that a trip whose language changes reads in the new one
// at once. Every key has every language: a test fails otherwise.
package words

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// The languages spoken, the default first.
const (
	English = "en"
	French  = "fr"
)

// Languages lists the languages spoken, the default first.
func Languages() []string { return []string{English, French} }

// Supported reports whether lang is spoken.
func Supported(lang string) bool { return slices.Contains(Languages(), lang) }

// Args are a text's arguments by name: strings, numbers, or a Text (a
// name the text embeds, rendered in the same language).
type Args map[string]any

// Text is something to say: a key of the catalogue and its arguments. It
// is stored as is and rendered when read.
type Text struct {
	Key  string `json:"key"`
	Args Args   `json:"args,omitempty"`
}

// T is the text of key with args.
func T(key string, args Args) Text { return Text{Key: key, Args: args} }

// In renders t in lang (the default language for an unknown one). An
// unknown key renders as itself: never a blank.
func (t Text) In(lang string) string { return Render(lang, t.Key, t.Args) }

// Render renders the template of key in lang. A placeholder is {name},
// or {name:N} for a number with N decimals, written with the language's
// decimal separator.
func Render(lang, key string, args Args) string {
	tpl, ok := catalog[key][lang]
	if !ok {
		if tpl, ok = catalog[key][English]; !ok {
			return key
		}
		lang = English
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(tpl, '{')
		if i < 0 {
			b.WriteString(tpl)
			return b.String()
		}
		j := strings.IndexByte(tpl[i:], '}')
		if j < 0 {
			b.WriteString(tpl)
			return b.String()
		}
		b.WriteString(tpl[:i])
		name, spec, _ := strings.Cut(tpl[i+1:i+j], ":")
		b.WriteString(format(lang, args[name], spec))
		tpl = tpl[i+j+1:]
	}
}

func format(lang string, v any, spec string) string {
	var f float64
	switch x := v.(type) {
	case string:
		return x
	case Text:
		return x.In(lang)
	case map[string]any: // a Text after a JSON round trip
		key, _ := x["key"].(string)
		args, _ := x["args"].(map[string]any)
		return Render(lang, key, args)
	case int:
		f = float64(x)
	case int64:
		f = float64(x)
	case float64:
		f = x
	case nil:
		return ""
	default:
		return ""
	}
	digits := 0
	if spec != "" {
		digits, _ = strconv.Atoi(spec)
	} else if f != math.Trunc(f) {
		digits = -1
	}
	s := strconv.FormatFloat(f, 'f', digits, 64)
	if lang == French {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// Keys lists every key of the catalogue, sorted.
func Keys() []string {
	out := make([]string, 0, len(catalog))
	for k := range catalog {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Has reports whether key is in the catalogue.
func Has(key string) bool { _, ok := catalog[key]; return ok }

// Template is the raw template of key in lang, for the completeness test.
func Template(lang, key string) (string, bool) {
	t, ok := catalog[key][lang]
	return t, ok
}

// Page is every text of keys starting with prefix that takes no argument,
// in lang, by key without the prefix: what a page template shows.
func Page(lang, prefix string) map[string]string {
	out := map[string]string{}
	for k := range catalog {
		if name, ok := strings.CutPrefix(k, prefix); ok {
			out[name] = Render(lang, k, nil)
		}
	}
	return out
}

var (
	frenchDays   = [...]string{"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"}
	frenchMonths = [...]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août",
		"septembre", "octobre", "novembre", "décembre"}
)

// LongDate writes a day in full ("Monday 2 June 2027", "lundi 2 juin 2027").
func LongDate(lang string, y int, m int, d int, weekday int) string {
	if lang == French {
		return frenchDays[weekday] + " " + strconv.Itoa(d) + " " + frenchMonths[m-1] + " " + strconv.Itoa(y)
	}
	return ""
}

// ShortDate writes a day briefly ("lun. 2 juin"); "" for English, which
// the caller formats itself.
func ShortDate(lang string, m int, d int, weekday int) string {
	if lang == French {
		return frenchDays[weekday][:3] + ". " + strconv.Itoa(d) + " " + frenchMonths[m-1]
	}
	return ""
}
