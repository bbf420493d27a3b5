package apptest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// UpdateGolden names the environment variable that makes Golden rewrite its
// files instead of comparing. An environment variable rather than a test
// flag, because one command must refresh the golden files of every package:
//
//	CAIRN_UPDATE_GOLDEN=1 go test ./...
const UpdateGolden = "CAIRN_UPDATE_GOLDEN"

// Golden compares got with the golden file at path (relative to the test's
// package folder, by convention testdata/NAME) and fails, naming the first
// line that differs, when they are not the same bytes. With
// CAIRN_UPDATE_GOLDEN=1 it writes got to path first (creating its folder),
// so the change shows up in the diff, where it is reviewed like code.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if updating(t) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v; create it with %s=1 go test -run '^%s$'", path, err, UpdateGolden, t.Name())
	}
	if bytes.Equal(want, got) {
		return
	}
	line, w, g := firstDifference(want, got)
	t.Fatalf("golden file %s differs at line %d:\n  want %s\n  got  %s\nreview the change, then refresh every golden file with %s=1 go test ./... (make golden)",
		path, line, w, g, UpdateGolden)
}

// updating reads UpdateGolden; a value that is not a boolean fails rather
// than being taken as either answer.
func updating(t testing.TB) bool {
	v := os.Getenv(UpdateGolden)
	if v == "" {
		return false
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		t.Fatalf("%s=%q: want 1 or 0", UpdateGolden, v)
	}
	return on
}

// firstDifference is the 1-based number of the first line where want and got
// differ, and that line of each, quoted, or "end of file" past the end.
func firstDifference(want, got []byte) (int, string, string) {
	w, g := bytes.Split(want, []byte("\n")), bytes.Split(got, []byte("\n"))
	line := func(lines [][]byte, i int) string {
		if i >= len(lines) {
			return "end of file"
		}
		return strconv.Quote(string(lines[i]))
	}
	i := 0
	for i < len(w) && i < len(g) && bytes.Equal(w[i], g[i]) {
		i++
	}
	return i + 1, line(w, i), line(g, i)
}
