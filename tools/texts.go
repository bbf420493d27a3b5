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
//
// It keeps the recently read in two generations of half the bound each, as
// the trips' digests are kept: a text is put in the current one, a text
// found in the previous one moves to the current, and when the current is
// full it becomes the previous and the one before is dropped. Emptied when
// full, it dropped the hottest results with the rest, and over many trips
// most reads rendered.
type texts struct {
	mu        sync.Mutex
	cur, prev textGeneration
}

// textGeneration is one generation of texts.
type textGeneration struct {
	m     map[reflect.Type]map[string]string // by type, then by JSON
	n     int                                // texts held
	bytes int                                // of the JSON and texts held
}

const (
	// maxTextsBytes bounds what texts holds, both generations together.
	maxTextsBytes = 16 << 20
	// maxTextJSON is the largest result remembered: a larger one is
	// rare, and would crowd the others out.
	maxTextJSON = 16 << 10
)

func newTexts() *texts { return &texts{cur: newTextGeneration(), prev: newTextGeneration()} }

func newTextGeneration() textGeneration {
	return textGeneration{m: map[reflect.Type]map[string]string{}}
}

func (g *textGeneration) get(t reflect.Type, b []byte) (string, bool) {
	text, ok := g.m[t][string(b)] // looked up without a copy of b
	return text, ok
}

func (g *textGeneration) put(t reflect.Type, json, text string) {
	byJSON := g.m[t]
	if byJSON == nil {
		byJSON = map[string]string{}
		g.m[t] = byJSON
	}
	if _, ok := byJSON[json]; !ok {
		byJSON[json] = text
		g.n++
		g.bytes += len(json) + len(text)
	}
}

func (g *textGeneration) drop(t reflect.Type, json, text string) {
	if byJSON := g.m[t]; byJSON != nil {
		if _, ok := byJSON[json]; ok {
			delete(byJSON, json)
			g.n--
			g.bytes -= len(json) + len(text)
		}
	}
}

// text answers the text of out, whose JSON is b, rendering it on a miss. A
// nil texts renders every time.
func (x *texts) text(out any, b []byte) (string, error) {
	if x == nil || len(b) > maxTextJSON {
		return textOf(out, b)
	}
	t := reflect.TypeOf(out)
	x.mu.Lock()
	text, ok := x.cur.get(t, b)
	if !ok {
		if text, ok = x.prev.get(t, b); ok {
			json := string(b)
			x.prev.drop(t, json, text)
			x.keep(t, json, text)
		}
	}
	x.mu.Unlock()
	if ok {
		return text, nil
	}
	text, err := textOf(out, b)
	if err != nil {
		return "", err
	}
	x.mu.Lock()
	if _, held := x.prev.get(t, b); !held { // another caller may have kept it meanwhile
		x.keep(t, string(b), text)
	}
	x.mu.Unlock()
	return text, nil
}

// keep puts a text in the current generation, which becomes the previous
// one once it holds half the bound.
func (x *texts) keep(t reflect.Type, json, text string) {
	x.cur.put(t, json, text)
	if x.cur.bytes >= maxTextsBytes/2 {
		x.prev, x.cur = x.cur, newTextGeneration()
	}
}

// held reports how many texts are held and how many bytes they take.
func (x *texts) held() (n, bytes int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.cur.n + x.prev.n, x.cur.bytes + x.prev.bytes
}

// textOf renders the text of out, whose JSON is b, marked when it carries
// text from third parties.
func textOf(out any, b []byte) (string, error) {
	budget := TextBudget
	if tb, ok := out.(TextBudgeter); ok { // the output sizes its own rendering
		budget = tb.TextBudget()
	}
	text, err := renderGo(out, b, budget)
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
