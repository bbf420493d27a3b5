package planner_test

import (
	"testing"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/planner/plannertest"
)

// TestConformanceSuite runs the official MCP conformance suite (pinned,
// testdata/npm) against the trip planner's /mcp: at 2026-07-28 every
// scenario that needs none of the suite's fixture tools, resources or
// prompts passes (the conformance product, examples/conformance, runs the
// rest), and the generic scenarios still pass at 2025-11-25.
func TestConformanceSuite(t *testing.T) {
	npm := apptest.Node(t)
	a := plannertest.New(t)
	tok := a.Token(t, "conformance@example.com")
	for _, tt := range []struct {
		revision string
		want     []string // the scenarios that need no fixture
	}{
		{"2026-07-28", []string{"tools-list", "http-header-validation", "server-sse-multiple-streams", "resources-list", "sep-2164-resource-not-found",
			"prompts-list", "dns-rebinding-protection", "caching", "completion-complete",
			"input-required-result-unsupported-methods", "input-required-result-missing-input-response",
			"input-required-result-ignore-extra-params", "input-required-result-validate-input", "tasks-status-notifications"}},
		{"2025-11-25", []string{"server-initialize", "ping", "tools-list", "server-sse-multiple-streams",
			"dns-rebinding-protection", "completion-complete", "resources-list", "prompts-list", "logging-set-level"}},
	} {
		t.Run(tt.revision, func(t *testing.T) {
			apptest.RequireScenarios(t, npm.Suite(t, a.URL+"/mcp", tok, "--requirements", tt.revision), tt.want...)
		})
	}
}
