package apptest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder stands in for a test so Golden's failures can be observed: Fatalf
// records the message and ends the goroutine, as the real one does.
type recorder struct {
	testing.TB
	failure string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "TestSomething" }
func (r *recorder) Fatal(args ...any) {
	r.failure = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// golden runs Golden against a recorder and answers its failure ("" when it
// passed).
func golden(t *testing.T, path string, got []byte) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Golden(r, path, got)
	}()
	<-done
	return r.failure
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name     string
		update   string
		stored   *string // nil: no golden file yet
		got      string
		wantFail string // substring of the failure; "" for none
		wantFile string // the golden file afterwards
	}{
		{name: "same bytes pass", stored: ptr("a\nb\n"), got: "a\nb\n", wantFile: "a\nb\n"},
		{name: "a changed line is named", stored: ptr("a\nb\n"), got: "a\nc\n",
			wantFail: "differs at line 2:\n  want \"b\"\n  got  \"c\"", wantFile: "a\nb\n"},
		{name: "a missing last newline is named", stored: ptr("a\n"), got: "a",
			wantFail: "differs at line 2:\n  want \"\"\n  got  end of file", wantFile: "a\n"},
		{name: "an extra line is named", stored: ptr("a\n"), got: "a\nb\n",
			wantFail: "differs at line 2:\n  want \"\"\n  got  \"b\"", wantFile: "a\n"},
		{name: "a missing file says how to create it", got: "a\n",
			wantFail: "CAIRN_UPDATE_GOLDEN=1 go test -run '^TestSomething$'"},
		{name: "update rewrites a stale file", update: "1", stored: ptr("old\n"), got: "new\n", wantFile: "new\n"},
		{name: "update creates a missing file", update: "true", got: "new\n", wantFile: "new\n"},
		{name: "update off compares", update: "0", stored: ptr("old\n"), got: "new\n",
			wantFail: "differs at line 1", wantFile: "old\n"},
		{name: "a value that is not a boolean fails", update: "yes please", stored: ptr("old\n"), got: "new\n",
			wantFail: `CAIRN_UPDATE_GOLDEN="yes please"`, wantFile: "old\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(UpdateGolden, tt.update)
			path := filepath.Join(t.TempDir(), "testdata", "x.golden")
			if tt.stored != nil {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(*tt.stored), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			failure := golden(t, path, []byte(tt.got))
			switch {
			case tt.wantFail == "" && failure != "":
				t.Fatalf("unexpected failure: %s", failure)
			case tt.wantFail != "" && !strings.Contains(failure, tt.wantFail):
				t.Fatalf("failure %q does not contain %q", failure, tt.wantFail)
			}
			if tt.wantFile == "" {
				return
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(after) != tt.wantFile {
				t.Fatalf("golden file is %q, want %q", after, tt.wantFile)
			}
		})
	}
}

func ptr(s string) *string { return &s }
