package registrytest_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/registry/registrytest"
	one "cairn.dev/cairn/registry/registrytest/internal/one/things"
	two "cairn.dev/cairn/registry/registrytest/internal/two/things"
)

type rec struct{ Name string }

func (*rec) RecordVersion() int64 { return 1 }

type in struct {
	Name string `json:"name" doc:"A name."`
}

type undocumented struct {
	Name  string `json:"name" doc:"A name."`
	Color string `json:"color"`
}

type out struct{}

func owns(context.Context, string, string) (bool, error) { return true, nil }

func handle[I any](context.Context, *registry.Call, *I) (out, error) { return out{}, nil }

func merge[I any](context.Context, *registry.Call, *I) (registry.Record, error) { return &rec{}, nil }

func check(registry.Record) []registry.Violation { return nil }

// good is a well-formed write; each case breaks one thing of it on purpose.
func good() registry.Op[in, out] {
	return registry.Op[in, out]{
		ID: "things.rename", HTTP: registry.Patch("/things/{id}", http.StatusOK),
		Tool:  registry.Tool("rename_thing", "Rename a thing."),
		Scope: "things:write", Owner: registry.ByURIVariable("id", owns), RateLimit: registry.NoRateLimit,
		Load:  func(context.Context, *registry.Call) (registry.Record, error) { return &rec{}, nil },
		Merge: merge[in], Validate: registry.ValidateWith(check), Lock: registry.NoLock,
		Precondition: registry.RequireVersion, Confirm: registry.NoConfirm, Idempotency: registry.NotACreation,
		Record: (*rec)(nil), Handle: handle[in],
	}
}

func TestTheWalkCatchesBrokenDeclarations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		give  func(reg *registry.Registry)
		wants string // the "operation/rule" that must fail
	}{
		{"write without validation", func(reg *registry.Registry) {
			op := good()
			op.Validate = registry.NotValidated
			registry.Add(reg, op)
		}, "things.rename/validated-write"},
		{"id route without owner", func(reg *registry.Registry) {
			op := good()
			op.Owner = registry.CallerOwned
			registry.Add(reg, op)
		}, "things.rename/owner-by-uri-variable"},
		{"read-only hint on a write", func(reg *registry.Registry) {
			op := good()
			op.Hints.ReadOnly = true
			registry.Add(reg, op)
		}, "things.rename/hints"},
		{"idempotent hint on a versioned write", func(reg *registry.Registry) {
			op := good()
			op.Hints.Idempotent = true
			registry.Add(reg, op)
		}, "things.rename/hints"},
		{"confirmation without destructive hint", func(reg *registry.Registry) {
			op := good()
			op.Confirm = registry.ConfirmWith(func(context.Context, *registry.Call) (registry.Impact, error) { return registry.Impact{}, nil })
			registry.Add(reg, op)
		}, "things.rename/hints"},
		{"argument not on the record", func(reg *registry.Registry) {
			op := good()
			registry.Add(reg, registry.Op[undocumented, out]{
				ID: op.ID, HTTP: op.HTTP, Tool: op.Tool, Scope: op.Scope, Owner: op.Owner, RateLimit: op.RateLimit,
				Load: op.Load, Merge: merge[undocumented], Validate: op.Validate, Lock: op.Lock,
				Precondition: op.Precondition, Confirm: op.Confirm, Idempotency: op.Idempotency,
				Record: op.Record, Handle: handle[undocumented],
			})
		}, "things.rename/schema-versus-record"},
		{"argument without description", func(reg *registry.Registry) {
			op := good()
			registry.Add(reg, registry.Op[undocumented, out]{
				ID: op.ID, HTTP: op.HTTP, Tool: op.Tool, Scope: op.Scope, Owner: op.Owner, RateLimit: op.RateLimit,
				Load: op.Load, Merge: merge[undocumented], Validate: op.Validate, Lock: op.Lock,
				Precondition: op.Precondition, Confirm: op.Confirm, Idempotency: op.Idempotency,
				Record: op.Record, Handle: handle[undocumented],
			})
		}, "things.rename/described-arguments"},
		{"accepted without background work", func(reg *registry.Registry) {
			op := good()
			op.HTTP = registry.Patch("/things/{id}", http.StatusAccepted)
			registry.Add(reg, op)
		}, "things.rename/accepted-dispatches"},
		{"lock left undeclared", func(reg *registry.Registry) {
			op := good()
			op.Lock = registry.LockRule{}
			registry.Add(reg, op)
		}, "registry/check"},
		{"duplicate tool name", func(reg *registry.Registry) {
			registry.Add(reg, good())
			op := good()
			op.ID, op.HTTP = "things.rename_again", registry.Patch("/things/{id}/again", http.StatusOK)
			registry.Add(reg, op)
		}, "registry/check"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := vocabulary()
			tt.give(reg)
			require.Contains(t, registrytest.Failures(reg), tt.wants)
		})
	}
}

func vocabulary() *registry.Registry {
	reg := registry.New()
	reg.DeclareScope("things:write", registry.WriteScope, "Change things.")
	return reg
}

func read[I any](id, path, tool string) registry.Op[I, out] {
	return registry.Op[I, out]{
		ID: id, HTTP: registry.Get(path), Tool: registry.Tool(tool, "Read."),
		Scope: "things:write", Owner: registry.CallerOwned, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation,
		Hints: registry.Hints{ReadOnly: true}, Handle: handle[I],
	}
}

// TestCheckReportsEveryClashAtOnce: clashes of schema name, route, tool,
// ID and scope are problems of Check, listed together, never a panic.
func TestCheckReportsEveryClashAtOnce(t *testing.T) {
	t.Parallel()
	reg := vocabulary()
	reg.DeclareScope("things:write", registry.WriteScope, "Again.")
	registry.Add(reg, read[one.Input]("things.one", "/one", "read_one"))
	registry.Add(reg, read[two.Input]("things.two", "/two", "read_two"))
	registry.Add(reg, read[in]("things.one", "/three", "read_three"))
	registry.Add(reg, read[in]("things.four", "/one", "read_one"))
	op := read[in]("things.five", "/five", "read_five")
	op.Scope = "things:unknown"
	registry.Add(reg, op)
	err := reg.Check()
	require.Error(t, err)
	for _, want := range []string{
		"schema name ThingsInput",
		"duplicate operation ID",
		"HTTP route GET /one clashes with",
		"tool name read_one is already used",
		"scope things:write is declared twice",
		"scope things:unknown is not in the vocabulary",
	} {
		require.Contains(t, err.Error(), want)
	}
}

// TestSchemaNamesAreQualified: two packages may each hold a type of one
// name only if their own names differ; the package names the schema.
func TestSchemaNamesAreQualified(t *testing.T) {
	t.Parallel()
	require.Equal(t, "ThingsInput", registry.SchemaName(reflect.TypeFor[one.Input](), "hint"))
	require.Equal(t, "RegistrytestTestIn", registry.SchemaName(reflect.TypeFor[in](), "hint"))
	require.Equal(t, "hint", registry.SchemaName(reflect.TypeFor[struct{ A int }](), "hint"))
}

func TestAWellFormedDeclarationIsCovered(t *testing.T) {
	t.Parallel()
	reg := vocabulary()
	registry.Add(reg, good())
	require.Empty(t, registrytest.Failures(reg))
	registrytest.RequireCovered(t, reg)
}
