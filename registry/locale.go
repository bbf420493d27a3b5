package registry

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// HeaderContentLanguage names the language of an answer's words.
const HeaderContentLanguage = "Content-Language"

// Locales are the languages a product answers in: the default (English
// unless declared otherwise) and the others it speaks, with the fixed
// texts of refusals (titles, details, violation reasons) in each. A face
// negotiates the call's language from the request (Accept-Language) and
// writes a refusal's fixed texts in it; a text with no translation stays
// as written. What a tool or the OpenAPI document describes is not
// translated: those are read by developers and models, in one language.
type Locales struct {
	mu     sync.RWMutex
	def    string
	others []string
	texts  map[string]map[string]string // language → text as written → in that language
}

// Locales are the registry's languages; a product declares them with
// SpeakLocales and Translate.
func (r *Registry) Locales() *Locales {
	r.localesOnce.Do(func() { r.locales = &Locales{def: "en", texts: map[string]map[string]string{}} })
	return r.locales
}

// SpeakLocales declares the languages answered in: def when the request
// names none of them, and the others.
func (r *Registry) SpeakLocales(def string, others ...string) {
	l := r.Locales()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.def = def
	for _, o := range others {
		if o != def && !slices.Contains(l.others, o) {
			l.others = append(l.others, o)
		}
	}
}

// Translate adds texts (as written → in lang) to lang's fixed texts.
func (r *Registry) Translate(lang string, texts map[string]string) {
	l := r.Locales()
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.texts[lang]
	if m == nil {
		m = map[string]string{}
		l.texts[lang] = m
	}
	for k, v := range texts {
		m[k] = v
	}
}

// Default is the language of a request that names none spoken.
func (l *Locales) Default() string {
	if l == nil {
		return "en"
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.def
}

// Spoken lists the languages answered in, the default first.
func (l *Locales) Spoken() []string {
	if l == nil {
		return []string{"en"}
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	return append([]string{l.def}, l.others...)
}

// Negotiate picks the language of an Accept-Language header (RFC 9110
// §12.5.4): the spoken language of highest weight, matched on its primary
// tag ("fr-CH" is "fr"), the default when none is spoken or the header is
// absent.
func (l *Locales) Negotiate(header string) string {
	spoken := l.Spoken()
	best, bestQ := spoken[0], 0.0
	for part := range strings.SplitSeq(header, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		primary, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(tag)), "-")
		if q > bestQ && slices.Contains(spoken, primary) {
			best, bestQ = primary, q
		}
	}
	return best
}

// Text is text in lang: its translation, or text itself.
func (l *Locales) Text(lang, text string) string {
	if l == nil || text == "" {
		return text
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if t, ok := l.texts[lang][text]; ok {
		return t
	}
	return text
}

// Problem renders e as a problem in lang: its title, detail and reasons
// translated where lang has them.
func (l *Locales) Problem(e *Error, lang string) Problem {
	p := e.Problem()
	if lang == l.Default() {
		return p
	}
	p.Title = l.Text(lang, p.Title)
	p.Detail = l.Text(lang, p.Detail)
	if len(p.Violations) > 0 {
		vs := make([]Violation, len(p.Violations))
		for i, v := range p.Violations {
			vs[i] = Violation{Field: v.Field, Reason: l.Text(lang, v.Reason)}
		}
		p.Violations = vs
	}
	return p
}

// Localized is an output whose words are in a language of their own (a
// resource written in its owner's language), which the answer names
// instead of the call's.
type Localized interface {
	ContentLanguage() string
}

// AnswerLanguage is the language an answer to c holding out is in.
func AnswerLanguage(c *Call, out any) string {
	if l, ok := out.(Localized); ok && l.ContentLanguage() != "" {
		return l.ContentLanguage()
	}
	return c.Locale
}

// StatusTitles are the titles of the statuses refusals answer with, as
// written, for a product's translations.
func StatusTitles() []string {
	var out []string
	for _, k := range Kinds() {
		out = append(out, http.StatusText(k.Status()))
	}
	return out
}
