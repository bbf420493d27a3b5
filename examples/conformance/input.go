package conformance

import (
	"context"
	"fmt"
	"strings"

	"cairn.dev/cairn/registry"
)

// form asks one question whose answer is the string field named field.
func form(message, field string) registry.InputRequest {
	return registry.InputRequest{Kind: registry.InputForm, Message: message, Schema: map[string]any{
		"type": "object", "properties": map[string]any{field: map[string]any{"type": "string"}}, "required": []any{field}}}
}

// confirmForm asks for an ok.
func confirmForm(message string) registry.InputRequest {
	return registry.InputRequest{Kind: registry.InputForm, Message: message, Schema: map[string]any{
		"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []any{"ok"}}}
}

// filled is the string field of an accepted form, or ok false.
func filled(c *registry.Call, key, field string) (string, bool) {
	a, ok := c.Answer(key)
	if !ok || !a.Accepted() {
		return "", false
	}
	s, ok := a.Values[field].(string)
	return s, ok
}

// ask asks for requests when the caller can answer every one of them;
// otherwise it answers fallback, what the fixture says without input (a
// client that cannot answer, or a face that cannot ask).
func ask(c *registry.Call, state string, fallback string, requests map[string]registry.InputRequest) (Answer, error) {
	for _, r := range requests {
		if !c.CanAsk(r.Kind) {
			return Answer{Blocks: []AnswerBlock{text(fallback)}}, nil
		}
	}
	return Answer{}, &registry.InputNeeded{Requests: requests, State: state}
}

// declareInput declares the fixtures that ask their caller for input
// before they answer (multi round-trip requests): a form, a model's
// completion, the caller's roots, several at once, two rounds, a state
// that must come back unaltered, and a request shaped by what the client
// declared it can answer.
func declareInput(reg *registry.Registry) {
	asking := func(tool, path, description string, handle func(*registry.Call) (Answer, error)) {
		working(reg, tool, path, description, func(_ context.Context, c *registry.Call, _ *NoInput) (Answer, error) { return handle(c) })
	}
	asking("test_input_required_result_elicitation", "input/elicitation", "Asks the caller's name, then greets it.", func(c *registry.Call) (Answer, error) {
		if name, ok := filled(c, "user_name", "name"); ok {
			return Answer{Blocks: []AnswerBlock{text("Hello, " + name + "!")}}, nil
		}
		return ask(c, "", "Hello, whoever you are!", map[string]registry.InputRequest{"user_name": form("What is your name?", "name")})
	})
	asking("test_input_required_result_sampling", "input/sampling", "Asks the caller's model a question, then tells its answer.", func(c *registry.Call) (Answer, error) {
		if a, ok := c.Answer("capital_question"); ok && a.Kind == registry.InputSample {
			return Answer{Blocks: []AnswerBlock{text("The model answered: " + a.Text)}}, nil
		}
		return ask(c, "", "No model was asked.", map[string]registry.InputRequest{
			"capital_question": {Kind: registry.InputSample, Message: "What is the capital of France?", MaxTokens: 100}})
	})
	asking("test_input_required_result_list_roots", "input/roots", "Asks the caller's roots, then lists them.", func(c *registry.Call) (Answer, error) {
		if a, ok := c.Answer("client_roots"); ok && a.Kind == registry.InputRoots {
			return Answer{Blocks: []AnswerBlock{text("Roots: " + strings.Join(a.Roots, ", "))}}, nil
		}
		return ask(c, "", "No roots were asked.", map[string]registry.InputRequest{"client_roots": {Kind: registry.InputRoots}})
	})
	asking("test_input_required_result_request_state", "input/request-state", "Asks for a confirmation, keeping a state that must come back.", func(c *registry.Call) (Answer, error) {
		if a, ok := c.Answer("confirm"); ok && a.Accepted() && c.InputState == "awaiting confirmation" {
			return Answer{Blocks: []AnswerBlock{text(fmt.Sprintf("confirmed: %v", a.Values["ok"]))}}, nil
		}
		return ask(c, "awaiting confirmation", "Nothing was confirmed.", map[string]registry.InputRequest{"confirm": confirmForm("Please confirm")})
	})
	asking("test_input_required_result_tampered_state", "input/tampered-state", "Asks for a confirmation; a state altered on its way back is refused.", func(c *registry.Call) (Answer, error) {
		if a, ok := c.Answer("confirm"); ok && a.Accepted() && c.InputState == "awaiting confirmation" {
			return Answer{Blocks: []AnswerBlock{text("confirmed, the state intact")}}, nil
		}
		return ask(c, "awaiting confirmation", "Nothing was confirmed.", map[string]registry.InputRequest{"confirm": confirmForm("Please confirm")})
	})
	asking("test_input_required_result_multiple_inputs", "input/multiple", "Asks a name, a greeting and the roots at once, then answers with all three.", func(c *registry.Call) (Answer, error) {
		name, named := filled(c, "user_name", "name")
		greeting, greeted := c.Answer("greeting")
		roots, rooted := c.Answer("client_roots")
		if named && greeted && rooted && c.InputState == "three asked" {
			return Answer{Blocks: []AnswerBlock{text(fmt.Sprintf("%s, %s (%d roots)", greeting.Text, name, len(roots.Roots)))}}, nil
		}
		return ask(c, "three asked", "Nothing was asked.", map[string]registry.InputRequest{
			"user_name":    form("What is your name?", "name"),
			"greeting":     {Kind: registry.InputSample, Message: "Generate a greeting", MaxTokens: 50},
			"client_roots": {Kind: registry.InputRoots},
		})
	})
	asking("test_input_required_result_multi_round", "input/multi-round", "Asks a name, then a colour, in two rounds.", func(c *registry.Call) (Answer, error) {
		if known, ok := strings.CutPrefix(c.InputState, "named:"); ok {
			if color, ok := filled(c, "step2", "color"); ok {
				return Answer{Blocks: []AnswerBlock{text(known + " likes " + color + ".")}}, nil
			}
			return ask(c, c.InputState, "Nothing was asked.", map[string]registry.InputRequest{"step2": form("Step 2: What is your favorite color?", "color")})
		}
		if name, ok := filled(c, "step1", "name"); ok && c.InputState == "round 1" {
			return ask(c, "named:"+name, "Nothing was asked.", map[string]registry.InputRequest{"step2": form("Step 2: What is your favorite color?", "color")})
		}
		return ask(c, "round 1", "Nothing was asked.", map[string]registry.InputRequest{"step1": form("Step 1: What is your name?", "name")})
	})
	// The stateless scenario's probe: a tool that cannot answer without
	// the caller's model. Over MCP it always asks (a client that did not
	// declare sampling is refused with -32021, by the face); over HTTP,
	// which has no model to ask, it says so.
	asking("test_missing_capability", "input/missing-capability", "Asks the caller's model, which it cannot answer without.", func(c *registry.Call) (Answer, error) {
		if a, ok := c.Answer("completion"); ok && a.Kind == registry.InputSample {
			return Answer{Blocks: []AnswerBlock{text("The model said: " + a.Text)}}, nil
		}
		if c.Face == registry.FaceHTTP {
			return Answer{Blocks: []AnswerBlock{text("Over HTTP there is no model to ask.")}}, nil
		}
		return Answer{}, &registry.InputNeeded{Requests: map[string]registry.InputRequest{
			"completion": {Kind: registry.InputSample, Message: "Say something.", MaxTokens: 20}}}
	})
	asking("test_input_required_result_capabilities", "input/capabilities", "Asks only for what the caller declared it can answer.", func(c *registry.Call) (Answer, error) {
		if len(c.InputAnswers) > 0 {
			return Answer{Blocks: []AnswerBlock{text(fmt.Sprintf("%d answers", len(c.InputAnswers)))}}, nil
		}
		requests := map[string]registry.InputRequest{}
		if c.CanAsk(registry.InputForm) {
			requests["user_name"] = form("What is your name?", "name")
		}
		if c.CanAsk(registry.InputSample) {
			requests["greeting"] = registry.InputRequest{Kind: registry.InputSample, Message: "Generate a greeting", MaxTokens: 50}
		}
		if len(requests) == 0 {
			return Answer{Blocks: []AnswerBlock{text("The caller can answer nothing.")}}, nil
		}
		return Answer{}, &registry.InputNeeded{Requests: requests}
	})
}
