package registry_test

import (
	"context"
	"strings"
	"testing"

	"cairn.dev/cairn/registry"
)

type named struct {
	Name string `json:"name,omitempty" doc:"A name."`
}

func declareStated(reg *registry.Registry, path, schema string) {
	registry.Add(reg, registry.Op[named, none]{
		ID: "things.reach", Summary: "Reach.", HTTP: registry.Post(path, 200).Reading(), Tool: registry.Tool("reach", "Reaches."),
		InputSchema: []byte(schema),
		Scope:       registry.Public, Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true},
		Handle: func(context.Context, *registry.Call, *named) (none, error) { return none{}, nil },
	})
}

func TestCheckJudgesStatedSchemas(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, path, schema string
		want               string // "" for none
	}{
		{"the input's fields", "/reach", `{"type":"object","properties":{"name":{"type":"string"}}}`, ""},
		{"not JSON", "/reach", `{"type":`, "not a JSON object"},
		{"not an object", "/reach", `{"type":"string"}`, `not of type "object"`},
		{"a property the input lacks", "/reach", `{"type":"object","properties":{"name":{},"age":{}}}`, "are not the input's fields"},
		{"a field the schema lacks", "/reach", `{"type":"object","properties":{}}`, "are not the input's fields"},
		{"a URI variable", "/reach/{id}", `{"type":"object","properties":{"name":{}}}`, "takes no URI variable"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			reg := registry.New()
			declareStated(reg, c.path, c.schema)
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
