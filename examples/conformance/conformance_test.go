package conformance_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	kit "cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/examples/conformance"
	"cairn.dev/cairn/registry/registrytest"
)

// TestRegistryCovered walks the product's declarations.
func TestRegistryCovered(t *testing.T) {
	t.Parallel()
	product := conformance.Product()
	cfg, err := config.Load("", nil, product.Keys()...)
	require.NoError(t, err)
	reg, err := app.Registry(product, cfg)
	require.NoError(t, err)
	registrytest.RequireCovered(t, reg)
}

// suiteScenarios is how many scenarios the pinned suite runs at
// --requirements 2026-07-28, the tasks extension's included.
const suiteScenarios = 50

// TestConformanceSuite runs the official MCP conformance suite at
// --requirements 2026-07-28 against the product's /mcp: every scenario it
// runs passes whole.
func TestConformanceSuite(t *testing.T) {
	npm := apptest.Node(t)
	a := apptest.New(t, conformance.Product())
	tok := a.Token(t, "suite@example.com")
	got := npm.Suite(t, a.URL+"/mcp", tok, "--requirements", "2026-07-28")
	require.Len(t, got, suiteScenarios, "the suite ran every scenario")
	apptest.RequireScenarios(t, got, slices.Sorted(maps.Keys(got))...)
}

// TestKit drives the framework's conformance kit over the fixtures: each
// is guarded on both faces like any operation.
func TestKit(t *testing.T) {
	t.Parallel()
	none := func(testing.TB, *apptest.App, kit.User) apptest.Request { return apptest.Request{} }
	fx := kit.Fixtures{"fixtures.greet": {Valid: func(testing.TB, *apptest.App, kit.User) apptest.Request {
		return apptest.Request{Args: map[string]any{"name": "kit"}}
	}}, "fixtures.test_error_handling": {Valid: func(testing.TB, *apptest.App, kit.User) apptest.Request {
		return apptest.Request{Args: map[string]any{"succeed": true}}
	}}}
	fx["fixtures.confirm_delete"] = kit.Fixture{
		Valid: func(testing.TB, *apptest.App, kit.User) apptest.Request {
			return apptest.Request{Args: map[string]any{"filename": "kit-" + uuid.NewString() + ".txt"}}
		},
		Conflicting: func(r apptest.Request) apptest.Request {
			r.Args = map[string]any{"filename": "other-" + r.Args["filename"].(string)}
			return r
		},
		Invalid: func(_ testing.TB, _ *apptest.App, _ kit.User, r apptest.Request) apptest.Request {
			r.Args = map[string]any{"filename": "   "}
			return r
		},
	}
	for _, tool := range []string{"slow_compute", "failing_job", "protocol_error_job", "test_tool_with_task", "multi_input"} {
		fx["fixtures."+tool] = kit.Fixture{
			Valid: func(testing.TB, *apptest.App, kit.User) apptest.Request {
				return apptest.Request{Args: map[string]any{"seconds": 1, "label": "kit-" + uuid.NewString()}}
			},
			Conflicting: func(r apptest.Request) apptest.Request {
				r.Args = map[string]any{"seconds": 2, "label": r.Args["label"]}
				return r
			},
			Invalid: func(_ testing.TB, _ *apptest.App, _ kit.User, r apptest.Request) apptest.Request {
				r.Args = map[string]any{"label": "   "}
				return r
			},
		}
	}
	fx["fixtures.get_job"] = kit.Fixture{Valid: func(t testing.TB, a *apptest.App, u kit.User) apptest.Request {
		op, _ := a.Server.Registry.Lookup("fixtures.slow_compute")
		out := a.ViaHTTP(t, apptest.Request{Op: op, Token: u.Token, Key: "kit-job-" + uuid.NewString(), Args: map[string]any{"seconds": 0}})
		require.Equal(t, 202, out.Status, string(out.Raw))
		return apptest.Request{Vars: map[string]string{"id": out.Body["id"].(string)}}
	}}
	for _, tool := range []string{"test_simple_text", "test_image_content", "test_audio_content",
		"test_embedded_resource", "test_multiple_content_types", "test_streaming_elicitation", "test_logging_tool",
		"test_tool_with_progress", "static_text", "static_binary", "test_input_required_result_elicitation",
		"test_input_required_result_sampling", "test_input_required_result_list_roots", "test_input_required_result_request_state",
		"test_input_required_result_tampered_state", "test_input_required_result_multiple_inputs",
		"test_input_required_result_multi_round", "test_input_required_result_capabilities", "test_missing_capability"} {
		fx["fixtures."+tool] = kit.Fixture{Valid: none}
	}
	fx["fixtures.template_data"] = kit.Fixture{Valid: func(testing.TB, *apptest.App, kit.User) apptest.Request {
		return apptest.Request{Vars: map[string]string{"id": conformance.TemplateIDs[0]}}
	}}
	fx["fixtures.json_schema_2020_12_tool"] = kit.Fixture{Valid: func(testing.TB, *apptest.App, kit.User) apptest.Request {
		return apptest.Request{Args: map[string]any{"name": "kit", "contactMethod": "email", "email": "kit@example.com"}}
	}}
	fx["fixtures.test_custom_headers"] = kit.Fixture{Valid: func(testing.TB, *apptest.App, kit.User) apptest.Request {
		return apptest.Request{Args: map[string]any{"region": "eu-west", "priority": 3, "query": "SELECT 1"}}
	}}
	kit.Exercise(t, apptest.New(t, conformance.Product()), fx)
}
