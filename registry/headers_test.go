package registry_test

import (
	"context"
	"strings"
	"testing"

	"cairn.dev/cairn/registry"
)

type mirrored struct {
	Region string   `json:"region" doc:"A region."`
	Count  int      `json:"count,omitempty" doc:"A count."`
	Tags   []string `json:"tags,omitempty" doc:"Tags."`
}

func declareMirrored(reg *registry.Registry, spec registry.ToolSpec) {
	registry.Add(reg, registry.Op[mirrored, none]{
		ID: "things.find", Summary: "Find.", HTTP: registry.Get("/things"), Tool: spec,
		Scope: registry.Public, Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true},
		Handle: func(context.Context, *registry.Call, *mirrored) (none, error) { return none{}, nil },
	})
}

func TestCheckJudgesMirroredArguments(t *testing.T) {
	t.Parallel()
	tool := registry.Tool("find", "Finds.")
	for _, c := range []struct {
		name string
		spec registry.ToolSpec
		want string // "" for none
	}{
		{"a string and an integer", tool.Mirrored("region", "Region").Mirrored("count", "Count"), ""},
		{"an argument the input lacks", tool.Mirrored("zone", "Zone"), `"zone" is not a field`},
		{"a list", tool.Mirrored("tags", "Tags"), "only a string, an integer or a boolean"},
		{"a header name that is no token", tool.Mirrored("region", "Re gion"), "is not an HTTP token"},
		{"one header for two arguments", tool.Mirrored("region", "Region").Mirrored("count", "region"), "in the same header"},
		{"a grouped tool", registry.ToolAction("find", "Finds.", "one").Mirrored("region", "Region"), "grouping several operations"},
		// Declared beside: a tool served only as a task must dispatch work.
		{"only as a task, dispatching nothing", tool.TaskRequired(), "served only as a task dispatches work"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			reg := registry.New()
			declareMirrored(reg, c.spec)
			err := reg.Check()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("want a refusal naming %q, got %v", c.want, err)
			}
		})
	}
}
