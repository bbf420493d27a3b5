package operations

import (
	"github.com/danielgtaylor/huma/v2"

	"cairn.dev/cairn/registry"
)

// speak negotiates the call's language from Accept-Language, and says on
// the answer which one it is in: every answer of a registered operation
// names its language (Content-Language), and varies with the header.
func (f *Face) speak(hc huma.Context, c *registry.Call) {
	c.Locale = f.locales.Negotiate(hc.Header("Accept-Language"))
	hc.AppendHeader("Vary", "Accept-Language")
}

// answerIn names the language of out, the answer to c.
func answerIn(hc huma.Context, c *registry.Call, out any) {
	if lang := registry.AnswerLanguage(c, out); lang != "" {
		hc.SetHeader(registry.HeaderContentLanguage, lang)
	}
}
