package planner_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/app/guardmatrix"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/planner"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/registry/registrytest"
)

// TestRegistryIsCovered walks every operation of the application.
func TestRegistryIsCovered(t *testing.T) {
	cfg, err := config.Load("", nil, planner.Keys()...)
	require.NoError(t, err)
	reg, err := app.Registry(planner.Product(), cfg)
	require.NoError(t, err)
	registrytest.RequireCovered(t, reg)
}

// TestOrder pins the guard order and checks that both faces run it.
func TestOrder(t *testing.T) {
	t.Parallel()
	want := []string{"authenticate", "scope", "rate_limit", "owner", "arguments", "read", "lock", "merge",
		"validate", "precondition", "confirm", "idempotency"}
	require.Equal(t, want, guards.Order, "change Order and this list together, and say why")

	a := plannertest.New(t)
	require.Equal(t, want, a.Server.HTTP.GuardNames())
	require.Equal(t, want, a.Server.MCP.GuardNames())
}

// TestGuardMatrixGolden keeps the operation × guard matrix under review: a
// change in guarding changes testdata/guards.*.golden.
func TestGuardMatrixGolden(t *testing.T) {
	cfg, err := config.Load("", nil, planner.Keys()...)
	require.NoError(t, err)
	reg, err := app.Registry(planner.Product(), cfg)
	require.NoError(t, err)
	for _, format := range guardmatrix.Formats {
		var buf bytes.Buffer
		require.NoError(t, guardmatrix.Write(&buf, reg, format))
		golden(t, "guards."+format+".golden", buf.Bytes())
	}
}

// golden compares got with testdata/name; CAIRN_UPDATE_GOLDEN=1 rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	apptest.Golden(t, filepath.Join("testdata", name), got)
}
