package guards

import (
	"context"
	"errors"
	"slices"
	"strings"

	"cairn.dev/cairn/registry"
)

// Owner authorizes by URI variable before anything is read (404): the
// rule's first variable by the caller, each child by its parent. A record
// unknown, someone else's, or not under its parent gets the one answer.
type Owner struct {
	// Schema, when set, judges the arguments beside a missing URI
	// variable, so that its refusal also names the unpublished arguments
	// sent with it, as the arguments guard would have.
	Schema ArgumentChecker
}

var _ Guard = Owner{}

// Name implements Guard.
func (Owner) Name() string { return NameOwner }

// Check implements Guard.
func (g Owner) Check(ctx context.Context, c *registry.Call, next Next) error {
	rule := c.Op.Owner
	id, err := addressed(c, rule.Var, rule)
	if err != nil {
		return g.withArguments(c, err)
	}
	ok, err := rule.Check(ctx, c.UserID(), id)
	if refusal := judged(c, ok, err); refusal != nil {
		return refusal
	}
	for _, child := range rule.Children() {
		cid, err := addressed(c, child.Var, rule)
		if err != nil {
			return g.withArguments(c, err)
		}
		if child.Claimed() {
			continue // looked up within its parent by the handler
		}
		ok, err := child.Check(ctx, c.Var(child.Parent), cid)
		if refusal := judged(c, ok, err); refusal != nil {
			return refusal
		}
	}
	return next(ctx, c)
}

// withArguments adds to the refusal of a missing URI variable what the
// arguments guard would refuse of the rest: the parts a face refused and
// the schema's violations, each field once.
func (g Owner) withArguments(c *registry.Call, err error) error {
	var e *registry.Error
	if !errors.As(err, &e) || e.Kind != registry.KindInvalid {
		return err
	}
	vs := append(slices.Clone(e.Violations), c.Refused...)
	if g.Schema != nil {
		vs = append(vs, g.Schema.CheckArguments(c.Op, c.Args)...)
	}
	out := *e
	out.Violations = onceEach(vs)
	return &out
}

// addressed is the value of the URI variable v, or the refusal of one that
// can name no record.
func addressed(c *registry.Call, v string, rule registry.OwnerRule) (string, error) {
	id := c.Var(v)
	if id == "" {
		return "", &registry.Error{Kind: registry.KindInvalid, Detail: "a required argument is missing",
			Violations: []registry.Violation{{Field: v, Reason: "is required"}}}
	}
	if v == rule.Var {
		if e := rule.Misshapen(id); e != nil {
			return "", e // no record has such an id: named as malformed, before any lookup
		}
	}
	if strings.ContainsRune(id, 0) {
		// No record has such an id; asking the store would fail on
		// PostgreSQL. It is unknown, and answered as any unknown id.
		return "", registry.NotFoundFor(c.Op)
	}
	return id, nil
}

// judged turns an ownership answer into the refusal it calls for: nil when
// owned; the one not-found answer when not, or when the check itself said
// "not found" or "forbidden" (a check telling those apart would be an
// existence oracle); a failure otherwise. A public operation's caller has
// no resources: its not-found says nothing of any (registry.NotFoundFor).
func judged(c *registry.Call, ok bool, err error) error {
	if err != nil {
		var e *registry.Error
		if errors.As(err, &e) && (e.Kind == registry.KindNotFound || e.Kind == registry.KindForbidden) {
			return registry.NotFoundFor(c.Op)
		}
		return registry.Internal(err)
	}
	if !ok {
		return registry.NotFoundFor(c.Op)
	}
	return nil
}
