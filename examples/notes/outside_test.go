package notes_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// outsidePath is the module path the example gets in its copy.
const outsidePath = "example.com/notes"

// TestBuildsOutsideTheRepository copies this example into a fresh Go module
// outside the repository, as a product team starts one, pointed at this
// checkout with a replace (how a team tests against Cairn before a release),
// and builds and tests it there: the example compiles against the public
// packages alone (the framework and the human door), and pulls in no
// package of the trip planner. Its tests run in the copy, the OAuth flow
// of the go-sdk client against its sign-in and consent among them.
func TestBuildsOutsideTheRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: builds and tests the example as a module of its own, which takes about a minute")
	}
	t.Parallel()
	root := checkout(t)
	dir := t.TempDir()
	copyExample(t, ".", dir)
	goLine := goDirective(t, filepath.Join(root, "go.mod"))
	gomod := "module " + outsidePath + "\n\n" + goLine + "\n\nrequire cairn.dev/cairn v0.0.0\n\nreplace cairn.dev/cairn => " + root + "\n"
	write(t, filepath.Join(dir, "go.mod"), []byte(gomod))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum")) // a starting point: tidy keeps what the copy needs
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), sum)

	// Everything the copy needs is already in the module cache (the checkout
	// builds); only when tidy cannot work offline does it reach the proxy.
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if offline, err := goCmd(dir, append(env, "GOPROXY=off"), "mod", "tidy"); err == nil {
		env = append(env, "GOPROXY=off")
	} else if out, err := goCmd(dir, env, "mod", "tidy"); err != nil {
		t.Fatalf("go mod tidy in the copy: %v\n%s", err, out)
	} else {
		t.Logf("go mod tidy needed the module proxy; offline it said:\n%s", offline)
	}
	if out, err := goCmd(dir, env, "build", "./..."); err != nil {
		t.Fatalf("go build ./... in the copy: %v\n%s", err, out)
	}
	deps, err := goCmd(dir, env, "list", "-deps", "-test", "./...")
	if err != nil {
		t.Fatalf("go list -deps in the copy: %v\n%s", err, deps)
	}
	var door []string
	for _, pkg := range strings.Fields(string(deps)) {
		if why := outsideTheFramework(pkg); why != "" {
			t.Errorf("the copy depends on %s, %s", pkg, why)
		}
		if strings.HasPrefix(pkg, "cairn.dev/cairn/door") {
			door = append(door, pkg)
		}
	}
	if len(door) == 0 {
		t.Error("the copy does not compose the door (cairn.dev/cairn/door): nothing of sign-in or OAuth was tested outside")
	}
	out, err := goCmd(dir, env, "test", "-count=1", "-v", "./...")
	if err != nil {
		t.Fatalf("go test ./... in the copy: %v\n%s", err, out)
	}
	// The door is served by the copy: its sign-in and OAuth are driven there.
	for _, test := range []string{"TestOAuthWithTheSDKClient", "TestConsentInNotesWords", "TestConformance"} {
		if !bytes.Contains(out, []byte("--- PASS: "+test+" ")) {
			t.Errorf("the copy's tests did not pass %s", test)
		}
	}
}

// doorModules are the modules of the human door, which any product
// composes beside the framework.
var doorModules = []string{"accounts", "oauth", "mail"}

// outsideTheFramework says why the copy may not depend on pkg, or "": a
// product outside the repository uses the framework and the door, nothing
// of the trip planner (its modules, its composition, its command) and no
// other product.
func outsideTheFramework(pkg string) string {
	if rest, ok := strings.CutPrefix(pkg, "cairn.dev/cairn/modules/"); ok {
		first, _, _ := strings.Cut(rest, "/")
		if slices.Contains(doorModules, first) {
			return ""
		}
		return "a module of the trip planner, not of the door"
	}
	for _, p := range []string{"cairn.dev/cairn/planner", "cairn.dev/cairn/cmd/", "cairn.dev/cairn/examples/"} {
		if pkg == p || strings.HasPrefix(pkg, strings.TrimSuffix(p, "/")+"/") {
			return "which is not part of the framework"
		}
	}
	return ""
}

// checkout is the root of the repository this test runs in.
func checkout(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		raw, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			if !bytes.HasPrefix(raw, []byte("module cairn.dev/cairn\n")) {
				t.Skipf("not inside the Cairn repository (%s/go.mod is another module): nothing to copy from", dir)
			}
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test: nothing to copy from")
		}
		dir = parent
	}
}

// copyExample copies the example's files from src to dst, its imports of
// itself rewritten to the copy's module path. This file stays behind: it
// tests the repository, not the product.
func copyExample(t *testing.T, src, dst string) {
	t.Helper()
	const self = "cairn.dev/cairn/examples/notes"
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dst, path)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if path == "outside_test.go" {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".go") {
			raw = bytes.ReplaceAll(raw, []byte(`"`+self), []byte(`"`+outsidePath))
		}
		return os.WriteFile(target, raw, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// goDirective is the go line of a go.mod, so the copy asks for the same
// language version as the checkout.
func goDirective(t *testing.T, gomod string) string {
	t.Helper()
	f, err := os.Open(gomod)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "go ") {
			return line
		}
	}
	t.Fatalf("%s has no go directive", gomod)
	return ""
}

func write(t *testing.T, path string, raw []byte) {
	t.Helper()
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// goCmd runs the go command in dir and answers its combined output.
func goCmd(dir string, env []string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = errors.New("timed out after 5 minutes")
	}
	return out, err
}

func TestOutsideTheFramework(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give string
		want bool // refused
	}{
		{give: "cairn.dev/cairn/app"},
		{give: "cairn.dev/cairn/door"},
		{give: "cairn.dev/cairn/door/doortest"},
		{give: "cairn.dev/cairn/modules/accounts"},
		{give: "cairn.dev/cairn/modules/oauth"},
		{give: "cairn.dev/cairn/modules/mail/mailtest"},
		{give: "cairn.dev/cairn/plannerish"},
		{give: "cairn.dev/cairn/modules/trips", want: true},
		{give: "cairn.dev/cairn/modules/route/fetch", want: true},
		{give: "cairn.dev/cairn/modules/accountsextra", want: true},
		{give: "cairn.dev/cairn/planner", want: true},
		{give: "cairn.dev/cairn/planner/plannertest", want: true},
		{give: "cairn.dev/cairn/cmd/cairn", want: true},
		{give: "cairn.dev/cairn/examples/notes", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			if got := outsideTheFramework(tt.give) != ""; got != tt.want {
				t.Errorf("outsideTheFramework(%s) refused: %v, want %v", tt.give, got, tt.want)
			}
		})
	}
}
