package apptest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// NPM is the project's npm folder (testdata/npm at the module's root):
// Node 22 and the MCP clients and conformance suite, pinned by its
// package-lock.json and installed by `make npm`.
type NPM struct {
	Dir  string // testdata/npm
	Node string // its Node 22 binary
}

// Node finds the installed npm folder. Without it the test skips loudly,
// naming the command that installs it; under CI=true it fails.
func Node(t testing.TB) NPM {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
	n := NPM{Dir: filepath.Join(dir, "testdata", "npm")}
	n.Node = filepath.Join(n.Dir, "node_modules", ".bin", "node")
	if _, err := os.Stat(filepath.Join(n.Dir, "node_modules", "@modelcontextprotocol", "client")); err != nil {
		n.Node = ""
	}
	if n.Node == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("the npm clients are not installed (testdata/npm): run `make npm`")
		}
		t.Skip("SKIPPED LOUDLY: the npm clients and Node 22 are not installed (testdata/npm); `make npm` installs them")
	}
	return n
}

// Run runs a script of the npm folder with its Node, for at most timeout,
// and returns what it printed (stdout and stderr).
func (n NPM) Run(t testing.TB, timeout time.Duration, script string, args ...string) ([]byte, error) {
	t.Helper()
	return n.exec(t, timeout, append([]string{filepath.Join(n.Dir, script)}, args...)...)
}

func (n NPM) exec(t testing.TB, timeout time.Duration, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, n.Node, args...)
	cmd.Dir = n.Dir
	return cmd.CombinedOutput()
}

// Bundle builds entry (a module of the npm folder) and what it imports
// into one browser module with the folder's esbuild, and returns it.
func (n NPM) Bundle(t testing.TB, entry string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "bundle.js")
	cmd := exec.Command(filepath.Join(n.Dir, "node_modules", ".bin", "esbuild"), filepath.Join(n.Dir, entry),
		"--bundle", "--format=esm", "--platform=browser", "--log-level=warning", "--outfile="+out)
	cmd.Dir = n.Dir
	if printed, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("esbuild %s: %v\n%s", entry, err, printed)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
