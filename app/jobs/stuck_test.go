package jobs_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/jobs"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// A process started with envWorker set to a database URL is a worker that
// enqueues one stuckArgs job, says "working" when it takes it, and hangs.
const envWorker = "CAIRN_TEST_JOBS_HANGING_WORKER"

// The timeouts under test: short, so that the test is quick, and given the
// way the application gives them (job_timeout, job_rescue_after).
const (
	testTimeout     = 2 * time.Second
	testRescueAfter = 4 * time.Second
)

// stuckArgs is the test's own job kind.
type stuckArgs struct{}

func (stuckArgs) Kind() string { return "jobs_test_stuck" }

type stuckWorker struct {
	river.WorkerDefaults[stuckArgs]
	work func(ctx context.Context, job *river.Job[stuckArgs]) error
}

func (w *stuckWorker) Work(ctx context.Context, job *river.Job[stuckArgs]) error {
	return w.work(ctx, job)
}

func TestMain(m *testing.M) {
	if url := os.Getenv(envWorker); url != "" {
		hangingWorker(url)
		return
	}
	os.Exit(m.Run())
}

// hangingWorker is the process that is killed: it holds its job, never
// finishing it, until it dies.
func hangingWorker(url string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "hanging worker:", err)
		os.Exit(2)
	}
	ctx := context.Background()
	q := open(url, fail)
	work := jobs.Work{Register: func(ws *river.Workers) {
		river.AddWorker(ws, &stuckWorker{work: func(context.Context, *river.Job[stuckArgs]) error {
			fmt.Println("working")
			select {} // hang, whatever the timeout says: only kill -9 ends this
		}})
	}}
	if err := q.Start(ctx, config(), []jobs.Work{work}, discard()); err != nil {
		fail(err)
	}
	if err := q.Insert(ctx, stuckArgs{}); err != nil {
		fail(err)
	}
	select {}
}

func open(url string, fail func(error)) *jobs.Queue {
	db, engine, err := storage.Open(url, "")
	if err != nil {
		fail(err)
	}
	q, err := jobs.Open(db, engine, storage.SQLitePath(url, ""))
	if err != nil {
		fail(err)
	}
	return q
}

func config() jobs.Config {
	return jobs.Config{Workers: 1, PollInterval: 50 * time.Millisecond, Timeout: testTimeout, RescueAfter: testRescueAfter}
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestAKilledProcessJobIsFinishedByAnother: a process is killed with
// SIGKILL while it runs a job; another process, started afterwards,
// rescues the job once it has run past job_rescue_after and finishes it,
// once, well inside two minutes.
func TestAKilledProcessJobIsFinishedByAnother(t *testing.T) {
	t.Parallel()
	for _, engine := range []struct {
		name string
		url  func(t testing.TB) string
	}{
		{"postgres", storagetest.PostgresURL},
		{"sqlite", func(t testing.TB) string { return "sqlite:" + filepath.Join(t.TempDir(), "jobs.db") }},
	} {
		t.Run(engine.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			url := engine.url(t)
			require.NoError(t, open(url, func(err error) { t.Fatal(err) }).Migrate(ctx))

			worker := exec.Command(os.Args[0], "-test.run=^$")
			worker.Env = append(os.Environ(), envWorker+"="+url)
			worker.Stderr = os.Stderr
			out, err := worker.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, worker.Start())
			t.Cleanup(func() { _ = worker.Process.Kill(); _ = worker.Wait() })
			line, err := bufio.NewReader(out).ReadString('\n')
			require.NoError(t, err, "the worker process takes the job")
			require.Equal(t, "working\n", line)
			require.NoError(t, worker.Process.Kill()) // SIGKILL: no shutdown, the job stays running
			_ = worker.Wait()

			var runs atomic.Int32
			var attempt atomic.Int64
			q := open(url, func(err error) { t.Fatal(err) })
			work := jobs.Work{Register: func(ws *river.Workers) {
				river.AddWorker(ws, &stuckWorker{work: func(_ context.Context, job *river.Job[stuckArgs]) error {
					runs.Add(1)
					attempt.Store(int64(job.Attempt))
					return nil
				}})
			}}
			require.NoError(t, q.Start(ctx, config(), []jobs.Work{work}, discard()))
			t.Cleanup(func() {
				stop, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				_ = q.Stop(stop)
			})

			require.EventuallyWithT(t, func(c *assert.CollectT) {
				counts, err := q.Counts(ctx)
				if !assert.NoError(c, err) {
					return
				}
				assert.True(c, runs.Load() == 1 && counts["running"] == 0 && counts["retryable"] == 0 && counts["available"] == 0,
					"runs %d, counts %v", runs.Load(), counts)
			}, 2*time.Minute, 100*time.Millisecond, "another process finishes the killed one's job")
			require.EqualValues(t, 1, runs.Load(), "finished once")
			require.EqualValues(t, 2, attempt.Load(), "the second attempt: the first died with its process")
		})
	}
}
