package apptest

import "testing"

// TestScenarioOf: the scenario's name is what precedes the time the suite
// stamps its folder with, whatever digits that time holds.
func TestScenarioOf(t *testing.T) {
	tests := []struct{ give, want string }{
		{"server-tools-list-2026-12-01T23-42-05-123Z", "tools-list"},
		{"server-dns-rebinding-protection-2026-12-01T23-42-05-209Z", "dns-rebinding-protection"},
		{"server-tasks-request-headers-2026-12-01T20-20-20-200Z", "tasks-request-headers"},
		{"server-caching", "caching"},
	}
	for _, tt := range tests {
		if got := scenarioOf(tt.give); got != tt.want {
			t.Errorf("scenarioOf(%q) = %q, want %q", tt.give, got, tt.want)
		}
	}
}
