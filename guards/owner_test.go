package guards_test

import (
	"context"
	"errors"
	"testing"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// TestOwnerGivesOneNotFound: whatever says "not yours" — a false, an
// owner function's not-found or forbidden, a child not under its parent —
// the caller gets the one not-found answer; only a failure of the check
// itself is a 500. A child is judged by the parent's value.
func TestOwnerGivesOneNotFound(t *testing.T) {
	t.Parallel()
	errStore := errors.New("the store is down")
	owned := func(ok bool, err error) registry.OwnerFunc {
		return func(context.Context, string, string) (bool, error) { return ok, err }
	}
	var childAsked [2]string
	child := func(ok bool) registry.ChildFunc {
		return func(_ context.Context, parent, id string) (bool, error) {
			childAsked = [2]string{parent, id}
			return ok, nil
		}
	}
	tests := []struct {
		name string
		rule registry.OwnerRule
		want registry.Kind // KindInternal for a failure; -1 for passing on
	}{
		{"owned", registry.ByURIVariable("id", owned(true, nil)), -1},
		{"not owned", registry.ByURIVariable("id", owned(false, nil)), registry.KindNotFound},
		{"the check says not found", registry.ByURIVariable("id", owned(false, registry.Fail(registry.KindNotFound, "no such list"))), registry.KindNotFound},
		{"the check says forbidden", registry.ByURIVariable("id", owned(false, registry.Fail(registry.KindForbidden, "not yours"))), registry.KindNotFound},
		{"the check fails", registry.ByURIVariable("id", owned(false, errStore)), registry.KindInternal},
		{"a child under its parent", registry.ByURIVariable("id", owned(true, nil)).Child("itemId", child(true)), -1},
		{"a child of another parent", registry.ByURIVariable("id", owned(true, nil)).Child("itemId", child(false)), registry.KindNotFound},
		{"a child claimed within its parent", registry.ByURIVariable("id", owned(true, nil)).Within("itemId"), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op := &registry.Operation{ID: "lists.item", HTTP: registry.Get("/lists/{id}/items/{itemId}"), Owner: tt.rule}
			c := &registry.Call{Op: op, Vars: map[string]string{"id": "list-1", "itemId": "item-9"}}
			passed := false
			err := guards.Owner{}.Check(context.Background(), c, func(context.Context, *registry.Call) error { passed = true; return nil })
			if tt.want == -1 {
				if err != nil || !passed {
					t.Fatalf("want the call passed on, got %v", err)
				}
				return
			}
			var e *registry.Error
			if !errors.As(err, &e) || e.Kind != tt.want {
				t.Fatalf("want %v, got %v", tt.want, err)
			}
			if tt.want == registry.KindNotFound && e.Detail != registry.NotFoundDetail {
				t.Fatalf("every not-found says the same: got %q", e.Detail)
			}
		})
	}
	if childAsked != [2]string{"list-1", "item-9"} {
		t.Fatalf("a child is judged by its parent's value: asked %v", childAsked)
	}
}
