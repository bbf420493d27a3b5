package registry_test

import (
	"context"
	"strings"
	"testing"

	"cairn.dev/cairn/registry"
)

// declareTool adds a public read served as tool name (branch action, when
// not empty) showing view v.
func declareTool(reg *registry.Registry, id, path, name, action string, v *registry.View) {
	spec := registry.Tool(name, "Reads.")
	if action != "" {
		spec = registry.ToolAction(name, "Reads.", action)
	}
	registry.Add(reg, registry.Op[none, none]{
		ID: id, Summary: id, HTTP: registry.Get(path), Tool: spec.Viewed(v),
		Scope: registry.Public, Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true},
		Handle: func(context.Context, *registry.Call, *none) (none, error) { return none{}, nil },
	})
}

func TestCheckJudgesViews(t *testing.T) {
	t.Parallel()
	good := &registry.View{URI: "ui://things/thing", Name: "thing", HTML: []byte("<p>")}
	twin := &registry.View{URI: "ui://things/thing", Name: "twin", HTML: []byte("<p>")}
	other := &registry.View{URI: "ui://things/other", Name: "other", HTML: []byte("<p>")}
	for _, c := range []struct {
		name    string
		declare func(reg *registry.Registry)
		want    string // "" for none
	}{
		{"one view on two tools", func(reg *registry.Registry) {
			declareTool(reg, "things.get", "/things/one", "get_thing", "", good)
			declareTool(reg, "things.list", "/things", "list_things", "", good)
		}, ""},
		{"a URI of another scheme", func(reg *registry.Registry) {
			declareTool(reg, "things.get", "/things/one", "get_thing", "", &registry.View{URI: "https://x/y", Name: "x", HTML: []byte("<p>")})
		}, "starts with ui://"},
		{"no document", func(reg *registry.Registry) {
			declareTool(reg, "things.get", "/things/one", "get_thing", "", &registry.View{URI: "ui://x/y", Name: "x"})
		}, "has no document"},
		{"two views under one URI", func(reg *registry.Registry) {
			declareTool(reg, "things.get", "/things/one", "get_thing", "", good)
			declareTool(reg, "things.list", "/things", "list_things", "", twin)
		}, "two views are declared under"},
		{"branches naming different views", func(reg *registry.Registry) {
			declareTool(reg, "things.a", "/things/a", "thing", "a", good)
			declareTool(reg, "things.b", "/things/b", "thing", "b", other)
		}, "name different views"},
		{"one branch without the view", func(reg *registry.Registry) {
			declareTool(reg, "things.a", "/things/a", "thing", "a", good)
			declareTool(reg, "things.b", "/things/b", "thing", "b", nil)
		}, "name different views"},
		{"an unknown permission", func(reg *registry.Registry) {
			declareTool(reg, "things.get", "/things/one", "get_thing", "", &registry.View{URI: "ui://x/y", Name: "x", HTML: []byte("<p>"), Permissions: []string{"usb"}})
		}, `asks for "usb"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			reg := registry.New()
			c.declare(reg)
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
