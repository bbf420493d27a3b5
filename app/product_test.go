package app_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.uber.org/fx"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
)

// This file is a small product for the framework's own tests: two
// creations under a rate limit (one counted in process while Redis is
// down, one SharedOnly), an event stream of the caller's progress topic,
// and tokens a test can revoke.

const scopeThings registry.Scope = "things"

// quota is the limit of both creations, per user and minute.
const quota = 3

// product is the things service; its handles reach what the test drives
// from outside (revocation, progress events).
type product struct {
	app.Product
	tokens  *revocable
	hub     *progress.Hub
	tickets *progress.Tickets
}

func newProduct() product {
	tokens := &revocable{ids: map[string]string{}, tokens: map[string]registry.Principal{}}
	hub, tickets := new(progress.Hub), new(progress.Tickets)
	th := &things{byID: map[string]Thing{}}
	return product{
		tokens: tokens, hub: hub, tickets: tickets,
		Product: app.Product{
			Name: "things", Title: "Things", Version: "0.0.1",
			Modules: []app.Module{{
				Name: "things",
				Options: fx.Options(
					fx.Provide(func() guards.Authenticator { return tokens }, func() app.TokenIssuer { return tokens }),
					fx.Provide(fx.Annotate(func(h progress.Hub, log *slog.Logger) registry.Declarer {
						th.hub, th.log = h, log
						return th.declare
					}, fx.ResultTags(`group:"declarations"`))),
					fx.Invoke(func(h progress.Hub, t progress.Tickets) { *hub, *tickets = h, t }),
				),
			}},
		},
	}
}

// revocable mints and resolves tokens in memory, and revokes them.
type revocable struct {
	mu     sync.Mutex
	ids    map[string]string // email -> user id
	tokens map[string]registry.Principal
}

func (r *revocable) IssueToken(_ context.Context, email string, scopes []registry.Scope) (string, error) {
	raw := make([]byte, 16)
	_, _ = rand.Read(raw)
	tok := "th_" + hex.EncodeToString(raw)
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.ids[email]
	if !ok {
		id = uuid.NewString()
		r.ids[email] = id
	}
	r.tokens[tok] = registry.Principal{UserID: id, Email: email, Scopes: append([]registry.Scope(nil), scopes...)}
	return tok, nil
}

func (r *revocable) Authenticate(_ context.Context, credential string) (*registry.Principal, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.tokens[credential]
	if !ok {
		return nil, nil
	}
	return &p, nil
}

func (r *revocable) revoke(token string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tokens, token)
}

func (r *revocable) userID(email string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ids[email]
}

// things keeps what is created in memory.
type things struct {
	mu   sync.Mutex
	byID map[string]Thing
	hub  progress.Hub
	log  *slog.Logger
}

type (
	// NoInput is the input of an operation without arguments.
	NoInput struct{}

	// ThingInput is a new thing.
	ThingInput struct {
		Name string `json:"name" maxLength:"100" doc:"What to call it."`
	}

	// Thing is a thing as published.
	Thing struct {
		ID   string `json:"id" doc:"Its id."`
		Name string `json:"name" doc:"Its name."`
	}
)

// CreatedID implements registry.Created.
func (t Thing) CreatedID() string { return t.ID }

// record is what a creation merges.
type record struct {
	Name string `json:"name"`
}

func (*record) RecordVersion() int64 { return 1 }

func (th *things) declare(reg *registry.Registry) {
	reg.DeclareScope(scopeThings, registry.WriteScope, "Make and follow things.")
	for _, op := range []struct {
		id, path, tool string
		rule           registry.RateRule
	}{
		{"things.create", "/things", "create_thing", registry.PerUser(quota, time.Minute)},
		{"things.create_shared", "/shared-things", "create_shared_thing", registry.PerUser(quota, time.Minute).Shared()},
	} {
		registry.Add(reg, registry.Op[ThingInput, Thing]{
			ID: op.id, Summary: "Make a thing",
			HTTP: registry.Post(op.path, http.StatusCreated), Tool: registry.Tool(op.tool, "Make a thing."),
			Scope: scopeThings, Owner: registry.CallerOwned, RateLimit: op.rule,
			Merge: func(_ context.Context, _ *registry.Call, in *ThingInput) (registry.Record, error) {
				return &record{Name: in.Name}, nil
			},
			Validate: registry.ValidateWith(func(registry.Record) []registry.Violation { return nil }),
			Lock:     registry.NoLock, Precondition: registry.NoPrecondition, Confirm: registry.NoConfirm,
			Idempotency: registry.CreationReplayedBy(th.replay), Record: (*record)(nil),
			Handle: th.create,
		})
	}
	registry.Add(reg, registry.Op[NoInput, events]{
		ID: "things.events", Summary: "Follow your things",
		HTTP: registry.Get("/things/events"), Tool: registry.NotATool(registry.MotiveNoTextualEquivalent),
		Scope: scopeThings, Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation, Hints: registry.Hints{ReadOnly: true},
		Handle: func(_ context.Context, c *registry.Call, _ *NoInput) (events, error) {
			return events{hub: th.hub, topic: topicOf(c.UserID())}, nil
		},
	})
}

func (th *things) create(ctx context.Context, c *registry.Call, in *ThingInput) (Thing, error) {
	t := Thing{ID: uuid.NewString(), Name: in.Name}
	th.mu.Lock()
	th.byID[t.ID] = t
	th.mu.Unlock()
	th.log.InfoContext(ctx, "thing made", "op", c.Op.ID)
	return t, nil
}

func (th *things) replay(_ context.Context, _ *registry.Call, id string) (any, error) {
	th.mu.Lock()
	defer th.mu.Unlock()
	return th.byID[id], nil
}

func topicOf(userID string) string { return "things:" + userID }

// events streams the caller's topic: a first "status", then every event.
type events struct {
	hub   progress.Hub
	topic string
}

func (e events) Stream(ctx context.Context, send func(registry.StreamEvent) error) error {
	sub, err := e.hub.Subscribe(ctx, e.topic, "")
	if err != nil {
		return err
	}
	if err := send(registry.StreamEvent{Event: "status", Data: map[string]bool{"following": true}}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-sub.Events:
			if !ok {
				return nil
			}
			if err := send(registry.StreamEvent{ID: ev.ID, Event: ev.Type, Data: ev.Data}); err != nil {
				return err
			}
		}
	}
}

// start runs the product as apptest.New does, logging to log (nil:
// nowhere).
func start(t *testing.T, p product, log *slog.Logger, opts ...apptest.Option) *apptest.App {
	t.Helper()
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return apptest.NewLogged(t, p.Product, log, opts...)
}
