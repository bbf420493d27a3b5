package tools

import (
	"reflect"
	"sync"
)

// texts remembers the text of recent results by their type and JSON: the
// text is a function of the two alone (render.go), and a result read again
// and again (a trip polled while it is planned, then read before every
// edit) answers the same bytes. Rendering is about a tenth of a get_trip's
// CPU; a lookup hashes the JSON once.
type texts struct {
	mu    sync.Mutex
	m     map[textKey]string
	bytes int // of keys and texts held
}

type textKey struct {
	t    reflect.Type
	json string
}

const (
	// maxTextsBytes bounds what texts holds; past it, it starts afresh.
	maxTextsBytes = 4 << 20
	// maxTextJSON is the largest result remembered: a larger one is
	// rare, and would crowd the others out.
	maxTextJSON = 16 << 10
)

func newTexts() *texts { return &texts{m: map[textKey]string{}} }

// text answers the text of out, whose JSON is b, rendering it on a miss. A
// nil texts renders every time.
func (x *texts) text(out any, b []byte) (string, error) {
	if x == nil || len(b) > maxTextJSON {
		return textOf(out, b)
	}
	k := textKey{reflect.TypeOf(out), string(b)}
	x.mu.Lock()
	text, ok := x.m[k]
	x.mu.Unlock()
	if ok {
		return text, nil
	}
	text, err := textOf(out, b)
	if err != nil {
		return "", err
	}
	x.mu.Lock()
	if x.bytes+len(k.json)+len(text) > maxTextsBytes {
		x.m, x.bytes = map[textKey]string{}, 0
	}
	if _, ok := x.m[k]; !ok {
		x.m[k] = text
		x.bytes += len(k.json) + len(text)
	}
	x.mu.Unlock()
	return text, nil
}

// textOf renders the text of out, whose JSON is b, marked when it carries
// text from third parties.
func textOf(out any, b []byte) (string, error) {
	text, err := renderGo(out, b, TextBudget)
	if err != nil {
		return "", err
	}
	if marksData(out) { // marking.go: a rule over the output's fields
		text = DataNotice + text
	}
	return text, nil
}
