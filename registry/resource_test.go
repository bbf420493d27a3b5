package registry_test

import (
	"context"
	"strings"
	"testing"

	"cairn.dev/cairn/registry"
)

// declareResource adds a public read served as resource spec at route.
func declareResource(reg *registry.Registry, id string, route registry.Route, spec registry.ResourceSpec, owner registry.OwnerRule) {
	registry.Add(reg, registry.Op[none, none]{
		ID: id, Summary: id, HTTP: route, Resource: spec,
		Scope: registry.Public, Owner: owner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true},
		Handle: func(context.Context, *registry.Call, *none) (none, error) { return none{}, nil },
	})
}

func TestCheckJudgesResources(t *testing.T) {
	t.Parallel()
	byID := registry.OneOf("id", "1")
	for _, c := range []struct {
		name    string
		declare func(reg *registry.Registry)
		want    string // "" for none
	}{
		{"a fixed URI and a template", func(reg *registry.Registry) {
			declareResource(reg, "things.text", registry.Get("/things/text"), registry.Resource("things://text", "text", "A text."), registry.CallerOwned)
			declareResource(reg, "things.one", registry.Get("/things/{id}"), registry.Resource("things://{id}/data", "one", "One thing."), byID)
		}, ""},
		{"a write", func(reg *registry.Registry) {
			declareResource(reg, "things.text", registry.Post("/things/text", 200), registry.Resource("things://text", "text", "A text."), registry.CallerOwned)
		}, "a resource is read"},
		{"a URI without a scheme", func(reg *registry.Registry) {
			declareResource(reg, "things.text", registry.Get("/things/text"), registry.Resource("text", "text", "A text."), registry.CallerOwned)
		}, "scheme://"},
		{"a template variable the route lacks", func(reg *registry.Registry) {
			declareResource(reg, "things.one", registry.Get("/things/one"), registry.Resource("things://{id}/data", "one", "One thing."), registry.CallerOwned)
		}, "are not the route's"},
		{"a template operator", func(reg *registry.Registry) {
			declareResource(reg, "things.one", registry.Get("/things/{id}"), registry.Resource("things://{+id}/data", "one", "One thing."), byID)
		}, "a plain {name}"},
		{"two resources under one URI", func(reg *registry.Registry) {
			declareResource(reg, "things.a", registry.Get("/things/a"), registry.Resource("things://text", "a", "A text."), registry.CallerOwned)
			declareResource(reg, "things.b", registry.Get("/things/b"), registry.Resource("things://text", "b", "A text."), registry.CallerOwned)
		}, "already served by things.a"},
		{"no description", func(reg *registry.Registry) {
			declareResource(reg, "things.text", registry.Get("/things/text"), registry.Resource("things://text", "text", ""), registry.CallerOwned)
		}, "no description"},
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
