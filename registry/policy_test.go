package registry_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"cairn.dev/cairn/registry"
)

// op is a declaration every test below changes one thing of: a write of
// /lists/{id} under a write scope, every guard written.
func op(change func(o *registry.Op[none, none])) registry.Op[none, none] {
	o := registry.Op[none, none]{
		ID: "lists.touch", Summary: "Touch a list", HTTP: registry.Post("/lists/{id}/touch", http.StatusOK),
		Tool: registry.NotATool(registry.MotiveUIVocabulary), Scope: "lists:write",
		Owner: registry.ByURIVariable("id", anyone), RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation,
		Handle: func(context.Context, *registry.Call, *none) (none, error) { return none{}, nil },
	}
	change(&o)
	return o
}

type (
	pagedIn struct {
		registry.PageInput
	}
	pagedOut struct {
		Items []string `json:"items"`
		registry.PageInfo
	}
)

// TestCheckJudgesPolicy: what a declaration says is judged when the
// registry is checked, each mistake named.
func TestCheckJudgesPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		change  func(o *registry.Op[none, none])
		want    string // "" when accepted
		listing bool   // declare the paged listing instead
	}{
		{"written right", func(*registry.Op[none, none]) {}, "", false},
		{"a child variable no rule covers", func(o *registry.Op[none, none]) { o.HTTP.Path = "/lists/{id}/items/{itemId}" },
			"the URI variable {itemId} of /lists/{id}/items/{itemId} is authorized by no rule", false},
		{"a child judged by its parent", func(o *registry.Op[none, none]) {
			o.HTTP.Path = "/lists/{id}/items/{itemId}"
			o.Owner = o.Owner.Child("itemId", anyone)
		}, "", false},
		{"a child claimed to be read within its parent", func(o *registry.Op[none, none]) {
			o.HTTP.Path = "/lists/{id}/items/{itemId}"
			o.Owner = o.Owner.Within("itemId")
		}, "", false},
		{"a child not in the route", func(o *registry.Op[none, none]) { o.Owner = o.Owner.Within("itemId") },
			"the owner rule's child {itemId} is not in the route", false},
		{"a caller-owned route naming a variable", func(o *registry.Op[none, none]) { o.Owner = registry.CallerOwned },
			"but the operation is declared CallerOwned", false},
		{"a DELETE that neither asks nor says why", func(o *registry.Op[none, none]) { o.HTTP = registry.Delete("/lists/{id}") },
			"a DELETE acts without confirmation", false},
		{"a DELETE saying why it does not ask", func(o *registry.Op[none, none]) {
			o.HTTP = registry.Delete("/lists/{id}")
			o.Confirm = registry.NoConfirmBecause("a list is made again in one call")
		}, "", false},
		{"a destructive hint without confirmation", func(o *registry.Op[none, none]) { o.Hints.Destructive = true },
			"an operation hinted destructive acts without confirmation", false},
		{"a write under a read scope", func(o *registry.Op[none, none]) { o.Scope = "lists:read" },
			"it writes (POST) under the read scope lists:read", false},
		{"a POST that only reads, under a read scope", func(o *registry.Op[none, none]) {
			o.Scope, o.HTTP = "lists:read", o.HTTP.Reading()
		}, "", false},
		{"a listing declared whole", nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := registry.New()
			reg.DeclareScope("lists:read", registry.ReadScope, "Read lists.")
			reg.DeclareScope("lists:write", registry.WriteScope, "Change lists.")
			if tt.listing {
				registry.Add(reg, registry.Op[pagedIn, pagedOut]{
					ID: "lists.list", Summary: "Lists", HTTP: registry.Get("/lists"), Tool: registry.NotATool(registry.MotiveUIVocabulary),
					Scope: "lists:read", Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
					Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
					Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true},
					Paging: registry.Paged(20, 100),
					Handle: func(context.Context, *registry.Call, *pagedIn) (pagedOut, error) { return pagedOut{}, nil },
				})
			} else {
				registry.Add(reg, op(tt.change))
			}
			err := reg.Check()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want a refusal saying %q, got %v", tt.want, err)
			}
		})
	}
}

// TestCheckRefusesAListingByHalves: paging is declared with its input and
// its output, or not at all.
func TestCheckRefusesAListingByHalves(t *testing.T) {
	t.Parallel()
	add := func(reg *registry.Registry, paging registry.Paging) {
		registry.Add(reg, registry.Op[none, none]{
			ID: "lists.list", Summary: "Lists", HTTP: registry.Get("/lists"), Tool: registry.NotATool(registry.MotiveUIVocabulary),
			Scope: registry.Public, Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
			Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
			Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true},
			Paging: paging,
			Handle: func(context.Context, *registry.Call, *none) (none, error) { return none{}, nil },
		})
	}
	for _, tt := range []struct {
		name   string
		paging registry.Paging
		want   string
	}{
		{"paged without a paging input", registry.Paged(20, 100), "its input does not embed registry.PageInput"},
		{"a default over the largest", registry.Paged(200, 100), "the default page size must be at least 1 and at most the largest"},
		{"a largest over the framework's", registry.Paged(20, 5000), "itself at most 1000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := registry.New()
			add(reg, tt.paging)
			if err := reg.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("want a refusal saying %q, got %v", tt.want, err)
			}
		})
	}
}

// TestPagingApply: the defaults are filled in, and a page size over the
// largest, or a page whose offset no store can represent, is refused by
// the argument's name.
func TestPagingApply(t *testing.T) {
	t.Parallel()
	p := registry.Paged(20, 100)
	for _, tt := range []struct {
		name       string
		give       registry.PageInput
		want       registry.PageInput
		wantFields []string
	}{
		{"defaults", registry.PageInput{}, registry.PageInput{Page: 1, ItemsPerPage: 20}, nil},
		{"as asked", registry.PageInput{Page: 3, ItemsPerPage: 50}, registry.PageInput{Page: 3, ItemsPerPage: 50}, nil},
		{"over the largest", registry.PageInput{Page: 1, ItemsPerPage: 101}, registry.PageInput{Page: 1, ItemsPerPage: 101}, []string{"itemsPerPage"}},
		{"the last page there is", registry.PageInput{Page: registry.MaxOffset/20 + 1, ItemsPerPage: 20},
			registry.PageInput{Page: registry.MaxOffset/20 + 1, ItemsPerPage: 20}, nil},
		{"past any offset", registry.PageInput{Page: registry.MaxOffset/20 + 2, ItemsPerPage: 20},
			registry.PageInput{Page: registry.MaxOffset/20 + 2, ItemsPerPage: 20}, []string{"page"}},
		{"the largest int", registry.PageInput{Page: 1<<63 - 1}, registry.PageInput{Page: 1<<63 - 1, ItemsPerPage: 20}, []string{"page"}},
		{"negative", registry.PageInput{Page: -1, ItemsPerPage: -5}, registry.PageInput{Page: -1, ItemsPerPage: -5}, []string{"itemsPerPage", "page"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.give
			vs := p.Apply(&in)
			var fields []string
			for _, v := range vs {
				fields = append(fields, v.Field)
			}
			if strings.Join(fields, ",") != strings.Join(tt.wantFields, ",") {
				t.Fatalf("violations %v, want %v", vs, tt.wantFields)
			}
			if in != tt.want {
				t.Fatalf("applied %+v, want %+v", in, tt.want)
			}
			if len(vs) == 0 && in.Offset() > registry.MaxOffset {
				t.Fatalf("an accepted page has offset %d, past %d", in.Offset(), registry.MaxOffset)
			}
		})
	}
}
