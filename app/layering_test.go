package app_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// layer is a set of packages and what none of them may depend on, directly
// or through other packages, in non-test code: what forbidden matches,
// unless except matches it too. Patterns are import paths; a trailing
// "/..." also matches everything below.
type layer struct {
	name      string
	members   []string
	forbidden []string
	except    []string
	optional  bool // the layer may have no package (yet)
}

// forbids reports whether l forbids depending on path.
func (l layer) forbids(path string) bool {
	return matchesAny(l.forbidden, path) && !matchesAny(l.except, path)
}

// tripLibraries are the libraries only the trip planner needs.
var tripLibraries = []string{
	"github.com/paulmach/osm/...", "github.com/ringsaturn/tzf/...", "github.com/ringsaturn/tzf-rel-lite/...",
	"github.com/muktihari/fit/...",
}

// doorModules are the modules of the human door, which any product
// composes (package door).
var doorModules = []string{"cairn.dev/cairn/modules/accounts/...", "cairn.dev/cairn/modules/oauth/...", "cairn.dev/cairn/modules/mail/..."}

// layers is the rule the "Layers" table of docs/layers.md states. A framework user
// imports the framework without the trip planner: no product package, and
// none of the libraries only the planner needs (OSM, time zones, FIT). A
// module is written against the registry and the storage contract, never
// against a face or the composition root, so it is served by both faces
// alike.
var layers = []layer{
	{
		name: "framework",
		members: []string{
			"cairn.dev/cairn/registry/...", "cairn.dev/cairn/guards/...", "cairn.dev/cairn/operations/...",
			"cairn.dev/cairn/tools/...", "cairn.dev/cairn/storage/...", "cairn.dev/cairn/migrations/...",
			"cairn.dev/cairn/progress/...", "cairn.dev/cairn/metrics/...", "cairn.dev/cairn/outbound/...",
			"cairn.dev/cairn/app/...", "cairn.dev/cairn/views/...", "cairn.dev/cairn/recent/...",
		},
		forbidden: append([]string{
			"cairn.dev/cairn/modules/...", "cairn.dev/cairn/door/...", "cairn.dev/cairn/planner/...",
			"cairn.dev/cairn/examples/...", "cairn.dev/cairn/cmd/...",
		}, tripLibraries...),
	},
	{
		name:    "module",
		members: []string{"cairn.dev/cairn/modules/..."},
		forbidden: []string{
			"cairn.dev/cairn/app/...", "cairn.dev/cairn/operations/...", "cairn.dev/cairn/tools/...",
			"cairn.dev/cairn/planner/...", "cairn.dev/cairn/examples/...", "cairn.dev/cairn/cmd/...",
			"github.com/danielgtaylor/huma/...", "github.com/modelcontextprotocol/go-sdk/...",
		},
	},
	{
		// The door's modules are written for any product: none reaches the
		// trip planner's modules or libraries.
		name:      "door module",
		members:   doorModules,
		forbidden: append([]string{"cairn.dev/cairn/modules/...", "cairn.dev/cairn/door/..."}, tripLibraries...),
		except:    doorModules,
	},
	{
		// The door's composition: the framework and the door's modules,
		// nothing of a product.
		name:    "door",
		members: []string{"cairn.dev/cairn/door/..."},
		forbidden: append([]string{
			"cairn.dev/cairn/modules/...", "cairn.dev/cairn/planner/...", "cairn.dev/cairn/examples/...", "cairn.dev/cairn/cmd/...",
		}, tripLibraries...),
		except: doorModules,
	},
	{
		// A product other than the trip planner: the framework and the
		// door, nothing of the planner.
		name:    "example",
		members: []string{"cairn.dev/cairn/examples/..."},
		forbidden: append([]string{
			"cairn.dev/cairn/modules/...", "cairn.dev/cairn/planner/...", "cairn.dev/cairn/cmd/...",
		}, tripLibraries...),
		except:   doorModules,
		optional: true, // the example may be a Go module of its own, outside this listing
	},
}

// TestLayering lists every package of the module with its non-test imports
// (go list -deps) and fails on each dependency a layer forbids, naming the
// chain of imports that leads to it.
func TestLayering(t *testing.T) {
	graph := goList(t)
	for _, l := range layers {
		if !l.optional && len(membersOf(graph, l)) == 0 {
			t.Errorf("layer %s has no package: the rule checks nothing (were its folders moved?)", l.name)
		}
	}
	for _, v := range violations(graph, layers) {
		t.Error(v)
	}
}

// TestViolations shows the checker catching each kind of breach on made-up
// import lists, and leaving allowed imports alone.
func TestViolations(t *testing.T) {
	tests := []struct {
		name  string
		graph map[string][]string
		want  []string
	}{
		{
			name: "allowed imports pass",
			graph: map[string][]string{
				"cairn.dev/cairn/app":              {"cairn.dev/cairn/registry", "github.com/danielgtaylor/huma/v2"},
				"cairn.dev/cairn/registry":         {"context"},
				"cairn.dev/cairn/modules/notes":    {"cairn.dev/cairn/registry", "cairn.dev/cairn/storage"},
				"cairn.dev/cairn/storage":          {"database/sql"},
				"cairn.dev/cairn/planner":          {"cairn.dev/cairn/app", "cairn.dev/cairn/modules/notes"},
				"cairn.dev/cairn/modulesextra":     {"cairn.dev/cairn/app"}, // a sibling name, not under modules/
				"github.com/danielgtaylor/huma/v2": nil,
			},
		},
		{
			name: "a framework package importing a module",
			graph: map[string][]string{
				"cairn.dev/cairn/guards":        {"cairn.dev/cairn/modules/trips"},
				"cairn.dev/cairn/modules/trips": nil,
			},
			want: []string{"framework package cairn.dev/cairn/guards depends on cairn.dev/cairn/modules/trips: cairn.dev/cairn/guards → cairn.dev/cairn/modules/trips"},
		},
		{
			name: "a framework subpackage reaching the planner through another package",
			graph: map[string][]string{
				"cairn.dev/cairn/app/apptest": {"cairn.dev/cairn/app/config"},
				"cairn.dev/cairn/app/config":  {"cairn.dev/cairn/planner"},
				"cairn.dev/cairn/planner":     nil,
			},
			want: []string{
				"framework package cairn.dev/cairn/app/apptest depends on cairn.dev/cairn/planner: cairn.dev/cairn/app/apptest → cairn.dev/cairn/app/config → cairn.dev/cairn/planner",
				"framework package cairn.dev/cairn/app/config depends on cairn.dev/cairn/planner: cairn.dev/cairn/app/config → cairn.dev/cairn/planner",
			},
		},
		{
			name: "a framework package pulling in OSM, time zones and FIT, named at the first forbidden package",
			graph: map[string][]string{
				"cairn.dev/cairn/storage":            {"github.com/paulmach/osm/osmpbf", "github.com/ringsaturn/tzf", "github.com/muktihari/fit/decoder"},
				"github.com/paulmach/osm/osmpbf":     nil,
				"github.com/ringsaturn/tzf":          {"github.com/ringsaturn/tzf-rel-lite"},
				"github.com/ringsaturn/tzf-rel-lite": nil,
				"github.com/muktihari/fit/decoder":   nil,
			},
			want: []string{
				"framework package cairn.dev/cairn/storage depends on github.com/muktihari/fit/decoder: cairn.dev/cairn/storage → github.com/muktihari/fit/decoder",
				"framework package cairn.dev/cairn/storage depends on github.com/paulmach/osm/osmpbf: cairn.dev/cairn/storage → github.com/paulmach/osm/osmpbf",
				"framework package cairn.dev/cairn/storage depends on github.com/ringsaturn/tzf: cairn.dev/cairn/storage → github.com/ringsaturn/tzf",
			},
		},
		{
			name: "a module importing the composition root, huma and the MCP SDK",
			graph: map[string][]string{
				"cairn.dev/cairn/modules/notes":              {"cairn.dev/cairn/app/storage", "github.com/danielgtaylor/huma/v2", "github.com/modelcontextprotocol/go-sdk/mcp"},
				"cairn.dev/cairn/app/storage":                nil,
				"github.com/danielgtaylor/huma/v2":           nil,
				"github.com/modelcontextprotocol/go-sdk/mcp": nil,
			},
			want: []string{
				"module package cairn.dev/cairn/modules/notes depends on cairn.dev/cairn/app/storage: cairn.dev/cairn/modules/notes → cairn.dev/cairn/app/storage",
				"module package cairn.dev/cairn/modules/notes depends on github.com/danielgtaylor/huma/v2: cairn.dev/cairn/modules/notes → github.com/danielgtaylor/huma/v2",
				"module package cairn.dev/cairn/modules/notes depends on github.com/modelcontextprotocol/go-sdk/mcp: cairn.dev/cairn/modules/notes → github.com/modelcontextprotocol/go-sdk/mcp",
			},
		},
		{
			name: "a module importing a face, named once for the face",
			graph: map[string][]string{
				"cairn.dev/cairn/modules/route/poi": {"cairn.dev/cairn/operations"},
				"cairn.dev/cairn/operations":        {"github.com/danielgtaylor/huma/v2"},
				"github.com/danielgtaylor/huma/v2":  nil,
			},
			want: []string{
				"module package cairn.dev/cairn/modules/route/poi depends on cairn.dev/cairn/operations: cairn.dev/cairn/modules/route/poi → cairn.dev/cairn/operations",
			},
		},
		{
			name: "a module reaching huma through a framework package it may import",
			graph: map[string][]string{
				"cairn.dev/cairn/modules/notes":    {"cairn.dev/cairn/guards"},
				"cairn.dev/cairn/guards":           {"github.com/danielgtaylor/huma/v2"},
				"github.com/danielgtaylor/huma/v2": nil,
			},
			want: []string{"module package cairn.dev/cairn/modules/notes depends on github.com/danielgtaylor/huma/v2: cairn.dev/cairn/modules/notes → cairn.dev/cairn/guards → github.com/danielgtaylor/huma/v2"},
		},
		{
			name: "the example composing the door",
			graph: map[string][]string{
				"cairn.dev/cairn/examples/notes":   {"cairn.dev/cairn/door", "cairn.dev/cairn/modules/accounts"},
				"cairn.dev/cairn/door":             {"cairn.dev/cairn/app", "cairn.dev/cairn/modules/oauth", "cairn.dev/cairn/modules/mail"},
				"cairn.dev/cairn/modules/oauth":    {"cairn.dev/cairn/modules/accounts", "cairn.dev/cairn/outbound"},
				"cairn.dev/cairn/modules/accounts": {"cairn.dev/cairn/modules/mail", "cairn.dev/cairn/registry"},
				"cairn.dev/cairn/modules/mail":     nil,
				"cairn.dev/cairn/app":              {"cairn.dev/cairn/registry"},
				"cairn.dev/cairn/outbound":         nil,
				"cairn.dev/cairn/registry":         nil,
			},
		},
		{
			name: "a door module reaching a trip library and a trip-planner module",
			graph: map[string][]string{
				"cairn.dev/cairn/modules/oauth":       {"cairn.dev/cairn/modules/route/fetch", "cairn.dev/cairn/modules/accounts"},
				"cairn.dev/cairn/modules/accounts":    {"github.com/ringsaturn/tzf"},
				"cairn.dev/cairn/modules/route/fetch": {"cairn.dev/cairn/outbound"},
				"cairn.dev/cairn/outbound":            nil,
				"github.com/ringsaturn/tzf":           nil,
			},
			want: []string{
				"door module package cairn.dev/cairn/modules/accounts depends on github.com/ringsaturn/tzf: cairn.dev/cairn/modules/accounts → github.com/ringsaturn/tzf",
				"door module package cairn.dev/cairn/modules/oauth depends on cairn.dev/cairn/modules/route/fetch: cairn.dev/cairn/modules/oauth → cairn.dev/cairn/modules/route/fetch",
				"door module package cairn.dev/cairn/modules/oauth depends on github.com/ringsaturn/tzf: cairn.dev/cairn/modules/oauth → cairn.dev/cairn/modules/accounts → github.com/ringsaturn/tzf",
			},
		},
		{
			name: "the door composing the trip planner, and the framework importing the door",
			graph: map[string][]string{
				"cairn.dev/cairn/door":          {"cairn.dev/cairn/planner"},
				"cairn.dev/cairn/planner":       nil,
				"cairn.dev/cairn/app/apptest":   {"cairn.dev/cairn/door"},
				"cairn.dev/cairn/modules/trips": nil,
			},
			want: []string{
				"door package cairn.dev/cairn/door depends on cairn.dev/cairn/planner: cairn.dev/cairn/door → cairn.dev/cairn/planner",
				"framework package cairn.dev/cairn/app/apptest depends on cairn.dev/cairn/door: cairn.dev/cairn/app/apptest → cairn.dev/cairn/door",
			},
		},
		{
			name: "the example importing a trip-planner module",
			graph: map[string][]string{
				"cairn.dev/cairn/examples/notes": {"cairn.dev/cairn/app", "cairn.dev/cairn/modules/scopes"},
				"cairn.dev/cairn/app":            nil,
				"cairn.dev/cairn/modules/scopes": nil,
			},
			want: []string{"example package cairn.dev/cairn/examples/notes depends on cairn.dev/cairn/modules/scopes: cairn.dev/cairn/examples/notes → cairn.dev/cairn/modules/scopes"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := violations(tt.graph, layers)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("violations:\n  got  %q\n  want %q", got, tt.want)
			}
		})
	}
}

// violations answers one line per package of a layer and forbidden package
// it depends on, with the shortest chain of imports that gets there, sorted.
// graph maps each package to its non-test imports.
func violations(graph map[string][]string, layers []layer) []string {
	var out []string
	for _, l := range layers {
		for _, from := range membersOf(graph, l) {
			for _, path := range reachable(graph, from) {
				// Only the first forbidden package on a chain is named:
				// what it imports in turn follows from it.
				if l.forbids(path[len(path)-1]) && !slices.ContainsFunc(path[1:len(path)-1], l.forbids) {
					out = append(out, l.name+" package "+from+" depends on "+path[len(path)-1]+": "+strings.Join(path, " → "))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// membersOf lists the packages of graph that belong to l, sorted.
func membersOf(graph map[string][]string, l layer) []string {
	var out []string
	for p := range graph {
		if matchesAny(l.members, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// reachable answers, for every package from depends on, the shortest chain
// of imports from from to it (breadth first).
func reachable(graph map[string][]string, from string) [][]string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	var out [][]string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range graph[p] {
			if _, seen := prev[q]; seen {
				continue
			}
			prev[q] = p
			queue = append(queue, q)
			var chain []string
			for at := q; at != ""; at = prev[at] {
				chain = append(chain, at)
			}
			slices.Reverse(chain)
			out = append(out, chain)
		}
	}
	return out
}

func matchesAny(patterns []string, path string) bool {
	for _, pat := range patterns {
		if base, tree := strings.CutSuffix(pat, "/..."); tree {
			if path == base || strings.HasPrefix(path, base+"/") {
				return true
			}
		} else if path == pat {
			return true
		}
	}
	return false
}

// goList answers every package of the module and everything it depends on,
// each with its non-test imports, as go list -deps reports them.
func goList(t *testing.T) map[string][]string {
	t.Helper()
	root := moduleRoot(t)
	watchSources(t, root)
	cmd := exec.Command("go", "list", "-e", "-deps", "-json=ImportPath,Imports,Error", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Error      *struct{ Err string }
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		// A package go list cannot read has an incomplete import list, so
		// the rule cannot be judged on it.
		if p.Error != nil {
			t.Errorf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		graph[p.ImportPath] = p.Imports
	}
	return graph
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not inside a Go module")
	}
	return filepath.Dir(gomod)
}

// watchSources stats every Go file and folder of the module. go test caches
// a result by the files the test itself opened, not those a command it runs
// read; without this, a new import elsewhere in the tree would be judged by
// a stale cached pass.
func watchSources(t *testing.T, root string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// The folders the go command skips.
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			_, err := os.Stat(path)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
