package registry_test

import (
	"context"
	"strings"
	"testing"

	"cairn.dev/cairn/registry"
)

// TestCheckJudgesPrompts: a declared prompt is judged with the operations,
// each mistake named.
func TestCheckJudgesPrompts(t *testing.T) {
	t.Parallel()
	render := func(context.Context, map[string]string) ([]registry.Message, error) { return nil, nil }
	asking := func(context.Context, map[string]string, registry.PromptInput) ([]registry.Message, error) {
		return nil, nil
	}
	good := func() registry.Prompt {
		return registry.Prompt{Name: "plan_a_day", Description: "Plan a day.", Scope: "lists:read", Render: render,
			Arguments: []registry.PromptArgument{{Name: "day", Description: "Which day.", Required: true}}}
	}
	tests := []struct {
		name   string
		change func(p *registry.Prompt)
		want   string // "" when accepted
	}{
		{"written right", func(*registry.Prompt) {}, ""},
		{"a public prompt", func(p *registry.Prompt) { p.Scope = registry.Public }, ""},
		{"a name in capitals", func(p *registry.Prompt) { p.Name = "PlanADay" }, "a prompt's name is lower snake case"},
		{"no description", func(p *registry.Prompt) { p.Description = "" }, "prompt plan_a_day: no description"},
		{"no scope", func(p *registry.Prompt) { p.Scope = "" }, "prompt plan_a_day: scope is not declared"},
		{"a scope outside the vocabulary", func(p *registry.Prompt) { p.Scope = "maps:read" }, "scope maps:read is not in the vocabulary"},
		{"no render", func(p *registry.Prompt) { p.Render = nil }, "prompt plan_a_day: no Render"},
		{"asking in place of render", func(p *registry.Prompt) { p.Render, p.Asking = nil, asking }, ""},
		{"render and asking both", func(p *registry.Prompt) { p.Asking = asking }, "both Render and Asking"},
		{"an argument twice", func(p *registry.Prompt) { p.Arguments = append(p.Arguments, p.Arguments[0]) }, `argument "day" is unnamed or declared twice`},
		{"an argument without words", func(p *registry.Prompt) { p.Arguments[0].Description = "" }, "argument day has no description"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := &registry.Registry{}
			reg.DeclareScope("lists:read", registry.ReadScope, "Read lists.")
			p := good()
			tt.change(&p)
			reg.DeclarePrompt(p)
			err := reg.Check()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("want it accepted, got %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("want a refusal saying %q, got %v", tt.want, err)
			}
		})
	}
}
