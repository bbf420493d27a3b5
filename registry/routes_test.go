package registry_test

import (
	"context"
	"strings"
	"testing"

	"cairn.dev/cairn/registry"
)

type none struct{}

// declare adds a read at route with every guard written out.
func declare(reg *registry.Registry, id string, route registry.Route, owner registry.OwnerRule) {
	registry.Add(reg, registry.Op[none, none]{
		ID: id, Summary: id, HTTP: route, Tool: registry.NotATool(registry.MotiveBinaryPayload),
		Scope: registry.Public, Owner: owner, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation,
		Handle: func(context.Context, *registry.Call, *none) (none, error) { return none{}, nil },
	})
}

func anyone(context.Context, string, string) (bool, error) { return true, nil }

func TestRouteSuffix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		path, base, variable, ext string
		ok                        bool
	}{
		{"/trips/{id}.gpx", "/trips/{id}", "id", ".gpx", true},
		{"/s/{code}/stages/{index}.fit", "/s/{code}/stages/{index}", "index", ".fit", true},
		{"/trips/{id}", "", "", "", false},
		{"/trips/{id}/trip.gpx", "", "", "", false},
		{"/trips/{id}/export.gpx", "", "", "", false},
		{"/trips/{id}.GPX", "", "", "", false},
		{"/trips/x{id}.gpx", "", "", "", false},
	} {
		base, v, ext, ok := registry.Get(c.path).Suffix()
		if base != c.base || v != c.variable || ext != c.ext || ok != c.ok {
			t.Errorf("%s: got (%q, %q, %q, %v), want (%q, %q, %q, %v)", c.path, base, v, ext, ok, c.base, c.variable, c.ext, c.ok)
		}
	}
}

func TestCheckRefusesRoutesNoRouterServes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		routes map[string]string // id → GET path
		want   string            // "" for none
	}{
		{"a suffix beside its base", map[string]string{"files.state": "/files/{id}", "files.gpx": "/files/{id}.gpx"}, ""},
		{"a suffix alone", map[string]string{"files.gpx": "/files/{id}.gpx"}, ""},
		{"a variable inside a segment", map[string]string{"files.odd": "/files/v{id}/x"}, "inside a segment"},
		{"a suffix before the last segment", map[string]string{"files.odd": "/files/{id}.gpx/x"}, "inside a segment"},
		{"a base naming its variable otherwise", map[string]string{"files.state": "/files/{fileId}", "files.gpx": "/files/{id}.gpx"}, "name them alike"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := registry.New()
			for id, path := range c.routes {
				v := path[strings.Index(path, "{")+1 : strings.Index(path, "}")]
				declare(reg, id, registry.Get(path), registry.ByURIVariable(v, anyone))
			}
			err := reg.Check()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("want a refusal saying %q, got %v", c.want, err)
			}
		})
	}
}

func TestOwnerRuleMatching(t *testing.T) {
	t.Parallel()
	rule := registry.ByURIVariable("code", anyone).Matching(`[A-Za-z0-9_-]+`)
	if rule.Shape() != `[A-Za-z0-9_-]+` {
		t.Fatalf("shape %q", rule.Shape())
	}
	for _, c := range []struct {
		value string
		ok    bool
	}{{"Ab3_x9-Q", true}, {"a*b", false}, {"a b", false}, {"été", false}, {"ab.gpx", false}, {"", false}} {
		e := rule.Misshapen(c.value)
		if (e == nil) != c.ok {
			t.Errorf("%q: refused %v, want accepted %v", c.value, e, c.ok)
		}
		if e != nil && (e.Kind != registry.KindMalformed || len(e.Violations) != 1 || e.Violations[0].Field != "code") {
			t.Errorf("%q: the refusal names the variable as malformed: %+v", c.value, e)
		}
		if e != nil && strings.Contains(e.Detail+e.Violations[0].Reason, c.value) && c.value != "" {
			t.Errorf("%q: the value is echoed", c.value)
		}
	}
	if registry.ByURIVariable("id", anyone).Misshapen("anything at all") != nil {
		t.Error("a rule without a shape refuses nothing")
	}
}

type negotiated struct{}

func (negotiated) AsPage() registry.Page { return nil }

func TestCheckPairsPagesWithNegotiatedOutputs(t *testing.T) {
	t.Parallel()
	refused := func(*registry.Error) registry.Page { return registry.StaticPage{} }
	add := func(reg *registry.Registry, route registry.Route) {
		registry.Add(reg, registry.Op[none, negotiated]{
			ID: "pages.read", Summary: "read", HTTP: route, Tool: registry.NotATool(registry.MotiveBrowserAndMailbox),
			Scope: registry.Public, Owner: registry.ByURIVariable("id", anyone), RateLimit: registry.NoRateLimit,
			Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
			Confirm: registry.NoConfirm, Idempotency: registry.NotACreation,
			Handle: func(context.Context, *registry.Call, *none) (negotiated, error) { return negotiated{}, nil },
		})
	}
	paired := registry.New()
	add(paired, registry.Get("/pages/{id}").WithPages(refused))
	if err := paired.Check(); err != nil {
		t.Fatalf("refused: %v", err)
	}
	unpaired := registry.New()
	add(unpaired, registry.Get("/pages/{id}"))
	if err := unpaired.Check(); err == nil || !strings.Contains(err.Error(), "WithPages") {
		t.Fatalf("a Negotiated output on a route without pages is refused, got %v", err)
	}
	plain := registry.New()
	declare(plain, "pages.plain", registry.Get("/plain/{id}").WithPages(refused), registry.ByURIVariable("id", anyone))
	if err := plain.Check(); err != nil {
		t.Fatalf("a route whose refusals alone are pages is accepted, got %v", err)
	}
}
