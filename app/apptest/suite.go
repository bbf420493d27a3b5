package apptest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Check is one check of the official MCP conformance suite, as it saved it.
type Check struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED, INFO
	ErrorMessage string `json:"errorMessage"`
}

// Suite runs the official MCP conformance suite (npm, pinned in
// testdata/npm) against the MCP endpoint url with token, with the suite's
// own arguments (--requirements 2026-07-28, --scenario NAME …), and
// returns each scenario's checks by scenario name. The token reaches the
// server through a preload (testdata/npm/bearer.mjs): the suite has no
// option for one.
func (n NPM) Suite(t testing.TB, url, token string, args ...string) map[string][]Check {
	t.Helper()
	out := t.TempDir()
	origin := url
	if i := strings.Index(url[len("http://"):], "/"); i >= 0 {
		origin = url[:len("http://")+i]
	}
	t.Setenv("CAIRN_ORIGIN", origin)
	t.Setenv("CAIRN_TOKEN", token)
	cmdArgs := append([]string{"--import", filepath.Join(n.Dir, "bearer.mjs"),
		filepath.Join(n.Dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		"server", "--url", url, "-o", out}, args...)
	printed, err := n.exec(t, 10*time.Minute, cmdArgs...)
	if err != nil && !strings.Contains(string(printed), "Total:") && !strings.Contains(string(printed), "Passed:") {
		t.Fatalf("conformance suite did not run: %v\n%s", err, printed)
	}
	dirs, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]Check{}
	for _, d := range dirs {
		raw, err := os.ReadFile(filepath.Join(out, d.Name(), "checks.json"))
		if err != nil {
			continue
		}
		var checks []Check
		if err := json.Unmarshal(raw, &checks); err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		// server-<scenario>-<timestamp>
		got[scenarioOf(d.Name())] = checks
	}
	return got
}

// stamped is the time the suite appends to a scenario's folder
// (-2026-12-01T23-42-05-209Z): what follows the scenario's name.
var stamped = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T[0-9TZ:.-]*$`)

// scenarioOf is the scenario a folder of the suite's output holds:
// server-<scenario>-<time>.
func scenarioOf(folder string) string {
	return stamped.ReplaceAllString(strings.TrimPrefix(folder, "server-"), "")
}

// Failures are the checks of a scenario that failed.
func Failures(checks []Check) []Check {
	var out []Check
	for _, c := range checks {
		if c.Status == "FAILURE" {
			out = append(out, c)
		}
	}
	return out
}

// RequireScenarios fails t for every check that failed in the scenarios
// named (and for one the suite did not run), and logs the scenarios that
// were run but not named, with their first failure: what the product
// does not serve yet.
func RequireScenarios(t testing.TB, got map[string][]Check, names ...string) {
	t.Helper()
	named := map[string]bool{}
	for _, name := range names {
		named[name] = true
		checks, ok := got[name]
		if !ok {
			t.Errorf("%s: the suite did not run it", name)
			continue
		}
		for _, c := range Failures(checks) {
			t.Errorf("%s: %s: %s", name, c.ID, c.ErrorMessage)
		}
	}
	for name, checks := range got {
		if f := Failures(checks); len(f) > 0 && !named[name] {
			t.Logf("not served: %s: %d of %d checks fail (%s: %s)", name, len(f), len(checks), f[0].ID, f[0].ErrorMessage)
		}
	}
}
