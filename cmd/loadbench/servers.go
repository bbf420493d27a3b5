package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to create and drop the benchmark's database
)

// process is one server under measurement.
type process struct {
	name string
	addr string // host:port
	cmd  *exec.Cmd
	log  string // where its output goes
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// freeAddr picks a loopback port nobody listens on.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// start runs prog, listening on addr, on cpu (when cpu >= 0) through this
// program's pin mode, its output to a file in dir, and waits for its
// /health to answer.
func start(name, addr, dir string, cpu int, env []string, prog string, args ...string) (*process, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	argv := append([]string{prog}, args...)
	if cpu >= 0 {
		argv = append([]string{self, "pin", strconv.Itoa(cpu), "--"}, argv...)
	}
	logPath := filepath.Join(dir, name+".log")
	out, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, err
	}
	out.Close()
	p := &process{name: name, addr: addr, cmd: cmd, log: logPath}
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) || exited(cmd) {
			p.stop()
			return nil, fmt.Errorf("%s did not start; its output is in %s:\n%s", name, logPath, tail(logPath))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func exited(cmd *exec.Cmd) bool {
	return cmd.Process.Signal(syscall.Signal(0)) != nil
}

// stop asks the server to shut down and waits for it.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// cairnBinary builds the server as `make build` does, into dir. With
// profiling, an overlay adds a pprof listener on LOADBENCH_PPROF to the
// build; overlay (a go build -overlay file) measures a variant of the
// source. The source tree is left as it is.
func cairnBinary(root, dir string, profiling bool, overlay string) (string, error) {
	bin := filepath.Join(dir, "cairn")
	args := []string{"build", "-o", bin}
	replace := map[string]string{}
	if overlay != "" {
		var o struct{ Replace map[string]string }
		b, err := os.ReadFile(overlay)
		if err == nil {
			err = json.Unmarshal(b, &o)
		}
		if err != nil {
			return "", fmt.Errorf("-overlay %s: %w", overlay, err)
		}
		replace = o.Replace
	}
	if profiling {
		src := filepath.Join(dir, "pprof.go")
		code := "package main\n\nimport (\n\t\"net/http\"\n\t_ \"net/http/pprof\"\n\t\"os\"\n)\n\n" +
			"func init() {\n\tif a := os.Getenv(\"LOADBENCH_PPROF\"); a != \"\" {\n\t\tgo func() { _ = http.ListenAndServe(a, nil) }()\n\t}\n}\n"
		if err := os.WriteFile(src, []byte(code), 0o600); err != nil {
			return "", err
		}
		replace[filepath.Join(root, "cmd", "cairn", "zz_loadbench_pprof.go")] = src
	}
	if len(replace) > 0 {
		b, _ := json.Marshal(map[string]any{"Replace": replace})
		path := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return "", err
		}
		args = append(args, "-overlay", path)
	}
	cmd := exec.Command("go", append(args, "./cmd/cairn")...)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/cairn: %w", err)
	}
	return bin, nil
}

// cairnCommand runs a one-off command of the binary (migrate, token create)
// and returns its standard output.
func cairnCommand(bin string, env []string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cairn %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// postgresDB creates a database of its own on the server at admin
// (postgres://user@host:port) and returns its URL and how to drop it.
func postgresDB(admin string) (string, func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := sql.Open("pgx", strings.TrimSuffix(admin, "/")+"/postgres?sslmode=disable")
	if err != nil {
		return "", nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return "", nil, err
	}
	name := fmt.Sprintf("cairn_loadbench_%d_%d", os.Getpid(), time.Now().Unix())
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		db.Close()
		return "", nil, err
	}
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "loadbench: could not drop database %s: %v\n", name, err)
		}
		db.Close()
	}
	return strings.TrimSuffix(admin, "/") + "/" + name + "?sslmode=disable", drop, nil
}

// backends lists the PostgreSQL server processes serving database name, as
// the benchmark's own connection (to another database) sees them.
func backends(admin, name string) func() []int {
	return func() []int {
		db, err := sql.Open("pgx", strings.TrimSuffix(admin, "/")+"/postgres?sslmode=disable")
		if err != nil {
			return nil
		}
		defer db.Close()
		rows, err := db.Query("SELECT pid FROM pg_stat_activity WHERE datname = $1", name)
		if err != nil {
			return nil
		}
		defer rows.Close()
		var out []int
		for rows.Next() {
			var pid int
			if rows.Scan(&pid) == nil {
				out = append(out, pid)
			}
		}
		return out
	}
}

// dbName is the database name of a postgres URL.
func dbName(url string) string {
	s := url[strings.LastIndexByte(url, '/')+1:]
	name, _, _ := strings.Cut(s, "?")
	return name
}
