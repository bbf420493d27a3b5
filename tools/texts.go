package tools

import (
	"reflect"
	"sync"

	"cairn.dev/cairn/recent"
	"cairn.dev/cairn/registry"
)

// texts remembers the text of recent results by their type and JSON: the
// text is a function of the two alone (render.go), and a result read again
// and again (a trip polled while it is planned, then read before every
// edit) answers the same bytes. Rendering is about a tenth of a get_trip's
// CPU; a lookup hashes the JSON once. The recently read are kept
// (recent.Cache): emptied when full, over many trips most reads rendered.
type texts struct {
	mu   sync.Mutex
	held *recent.Cache[textKey, string]
}

// textKey is a result's type and JSON.
type textKey struct {
	t    reflect.Type
	json string
}

const (
	// maxTextsBytes bounds the JSON and texts held.
	maxTextsBytes = 16 << 20
	// maxTextJSON is the largest result remembered: a larger one is
	// rare, and would crowd the others out.
	maxTextJSON = 16 << 10
)

func newTexts() *texts {
	return &texts{held: recent.New(maxTextsBytes, func(k textKey, text string) int { return len(k.json) + len(text) })}
}

// text answers the text of out, whose JSON is b, rendering it on a miss. A
// nil texts renders every time. A kept answer keeps its text beside it
// (registry.Kept), not here.
func (x *texts) text(out any, b []byte) (string, error) {
	if k, ok := out.(registry.Kept); ok && k.Rendering() != nil {
		return keptText(k, b)
	}
	if x == nil || len(b) > maxTextJSON {
		return textOf(out, b)
	}
	t := reflect.TypeOf(out)
	x.mu.Lock()
	text, ok := x.held.Get(textKey{t, string(b)}) // looked up without a copy of b
	x.mu.Unlock()
	if ok {
		return text, nil
	}
	text, err := textOf(out, b)
	if err != nil {
		return "", err
	}
	x.mu.Lock()
	x.held.Put(textKey{t, string(b)}, text)
	x.mu.Unlock()
	return text, nil
}

// keptText is the text of the kept answer k, whose JSON is b: rendered by
// the first call given the answer, and kept beside it for the others.
func keptText(k registry.Kept, b []byte) (string, error) {
	r := k.Rendering()
	if text, ok := r.Text(); ok {
		return text, nil
	}
	text, err := textOf(k, b)
	if err != nil {
		return "", err
	}
	r.Keep(text)
	return text, nil
}

// textOf renders the text of out, whose JSON is b, marked when it carries
// text from third parties: from the value, but for an abridged one, which
// holds less than its JSON.
func textOf(out any, b []byte) (string, error) {
	budget := TextBudget
	if tb, ok := out.(TextBudgeter); ok { // the output sizes its own rendering
		budget = tb.TextBudget()
	}
	var text string
	var err error
	if k, ok := out.(registry.Kept); ok && k.Abridged() {
		text, err = renderEncoded(out, b, budget)
	} else {
		text, err = renderGo(out, b, budget)
	}
	if err != nil {
		return "", err
	}
	if marksData(out) { // marking.go: a rule over the output's fields
		text = DataNotice + text
	}
	return text, nil
}

// TextBudgeter is an output that sets its own TextBudget: one read whose
// answer has a size budget of its own (text and structured content
// together) keeps the text to the summary past a smaller rendering.
type TextBudgeter interface {
	TextBudget() int
}
