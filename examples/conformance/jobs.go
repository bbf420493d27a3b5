package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"cairn.dev/cairn/registry"
)

// Job kinds: the background work of the tasks extension's fixtures.
const (
	kindCompute       = "compute"        // slow_compute: settles after its seconds
	kindFailing       = "failing"        // failing_job: fails, as a tool error, after a second
	kindProtocolError = "protocol_error" // protocol_error_job: breaks, after a second
	kindDeletion      = "deletion"       // confirm_delete: waits for the person's confirmation (asking.go)
	kindTwoAnswers    = "two_answers"    // multi_input: waits for two answers at once (asking.go)
)

// Job is a fixture's background work. Its work is time passing, so all of
// it is in its id: who started it, when, for how long. Nothing is kept in
// a process, and every replica reads a job the same.
type Job struct {
	UserID  string `json:"u"`
	Kind    string `json:"k"`
	Label   string `json:"l,omitempty"`
	Started int64  `json:"s"` // Unix milliseconds
	Seconds int    `json:"d"` // how long it lasts
	// Filename is the file a deletion deletes (confirm_delete).
	Filename string `json:"filename,omitempty"`
}

// RecordVersion implements registry.Record: a job never changes.
func (*Job) RecordVersion() int64 { return 1 }

// ends is when the job settles, in Unix milliseconds.
func (j *Job) ends() int64 { return j.Started + int64(j.Seconds)*1000 }

func (j *Job) id() string {
	b, _ := json.Marshal(j)
	return base64.RawURLEncoding.EncodeToString(b)
}

func jobOf(id string) (*Job, bool) {
	b, err := base64.RawURLEncoding.DecodeString(id)
	if err != nil {
		return nil, false
	}
	var j Job
	if json.Unmarshal(b, &j) != nil || j.Kind == "" {
		return nil, false
	}
	return &j, true
}

// ComputeInput is what slow_compute takes.
type ComputeInput struct {
	Seconds int    `json:"seconds,omitempty" minimum:"0" maximum:"600" doc:"How long the work takes, in seconds (0 to 600)."`
	Label   string `json:"label,omitempty" maxLength:"200" doc:"A name for the work, said back in its result."`
}

// JobInput is what the jobs that take nothing take.
type JobInput struct{}

// Started is a job's answer when it starts.
type Started struct {
	ID   string `json:"id" doc:"The job's id."`
	Next string `json:"next" doc:"What to call next."`
}

// CreatedID implements registry.Created.
func (s Started) CreatedID() string { return s.ID }

// FollowUp implements registry.Followed: get_job follows the job.
func (s Started) FollowUp() registry.FollowUp {
	return registry.FollowUp{Op: "fixtures.get_job", Vars: map[string]string{"id": s.ID}}
}

// JobState is a job as get_job reads it.
type JobState struct {
	ID     string `json:"id" doc:"The job's id."`
	Status string `json:"status" doc:"working, waiting (for the person), done, failed or broken."`
	Result string `json:"result,omitempty" text:"own" doc:"What the work gave, once done."`
	job    *Job
	now    time.Time
}

// Settlement implements registry.Settling.
func (s JobState) Settlement() registry.Settlement {
	switch s.Status {
	case "waiting":
		return registry.Settlement{Message: "waiting for the person's confirmation"}
	case "working":
		return registry.Settlement{Message: fmt.Sprintf("%s: %d ms to go", s.job.Kind, s.job.ends()-s.now.UnixMilli())}
	case "failed":
		return registry.Settlement{Settled: true, Failure: "the job failed: this fixture always does"}
	case "broken":
		return registry.Settlement{Settled: true, Broken: "the job crashed: this fixture always does"}
	}
	return registry.Settlement{Settled: true}
}

// declareJobs adds the jobs' fixtures and their read.
func declareJobs(reg *registry.Registry) {
	start := func(kind string, lasts func(in *ComputeInput) int) func(context.Context, *registry.Call, *ComputeInput) (registry.Record, error) {
		return func(_ context.Context, c *registry.Call, in *ComputeInput) (registry.Record, error) {
			return &Job{UserID: c.UserID(), Kind: kind, Label: in.Label, Started: c.Now.UnixMilli(), Seconds: lasts(in)}, nil
		}
	}
	second := func(*ComputeInput) int { return 1 }
	job(reg, "slow_compute", "Computes for the given seconds in the background, then answers its label.",
		start(kindCompute, func(in *ComputeInput) int { return in.Seconds }), started, nil)
	job(reg, "failing_job", "Fails after a second in the background, as a tool error; only as a task at 2026-07-28.", start(kindFailing, second), started, nil)
	job(reg, "protocol_error_job", "Crashes after a second in the background.", start(kindProtocolError, second), started, nil)
	declareAskingJobs(reg, start)

	registry.Add(reg, registry.Op[NoInput, JobState]{
		ID:      "fixtures.get_job",
		Summary: "Read a background job",
		HTTP:    registry.Get("/fixtures/jobs/{id}"),
		Tool:    registry.Tool("get_job", "Read a background job of the fixtures: working until it settles, then its result."),

		Scope:        ScopeUse,
		Owner:        registry.ByURIVariable("id", ownsJob),
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},

		Handle: func(_ context.Context, c *registry.Call, _ *NoInput) (JobState, error) {
			j, _ := jobOf(c.Var("id"))
			switch j.Kind {
			case kindDeletion:
				return deletion(c, j, c.Var("id"))
			case kindTwoAnswers:
				return twoAnswers(c, j, c.Var("id"))
			}
			return stateOf(j, c.Var("id"), c.Now), nil
		},
	})
}

func stateOf(j *Job, id string, now time.Time) JobState {
	s := JobState{ID: id, Status: "working", job: j, now: now}
	if now.UnixMilli() < j.ends() {
		return s
	}
	switch j.Kind {
	case kindFailing:
		s.Status = "failed"
	case kindProtocolError:
		s.Status = "broken"
	default:
		s.Status, s.Result = "done", "computed: "+j.Label
	}
	return s
}

// ownsJob: a job belongs to who started it.
func ownsJob(_ context.Context, userID, id string) (bool, error) {
	j, ok := jobOf(id)
	return ok && j.UserID == userID, nil
}

// job declares one fixture that starts background work, answered by out.
func job[I, O any](reg *registry.Registry, tool, description string, merge func(context.Context, *registry.Call, *I) (registry.Record, error), out func(id string) O, asks func(*registry.Call) error) {
	registry.Add(reg, registry.Op[I, O]{
		ID:      "fixtures." + tool,
		Summary: description,
		HTTP:    registry.Post("/fixtures/jobs/"+tool, http.StatusAccepted),
		Tool:    toolOf(tool, description),

		Scope:        ScopeUse,
		Owner:        registry.CallerOwned,
		RateLimit:    registry.NoRateLimit,
		Merge:        merge,
		Validate:     registry.ValidateWith(validateJob),
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency: registry.CreationReplayedBy(func(_ context.Context, _ *registry.Call, id string) (any, error) {
			return out(id), nil
		}),
		Hints:      registry.Hints{},
		Dispatches: true,
		Record:     (*Job)(nil),

		Handle: func(_ context.Context, c *registry.Call, _ *I) (O, error) {
			if asks != nil {
				if err := asks(c); err != nil {
					var none O
					return none, err
				}
			}
			return out(c.Merged.(*Job).id()), nil
		},
	})
}

// validateJob: a label or a file name, when given, says something.
func validateJob(r registry.Record) []registry.Violation {
	j := r.(*Job)
	var out []registry.Violation
	if j.Label != "" && strings.TrimSpace(j.Label) == "" {
		out = append(out, registry.Violation{Field: "label", Reason: "must not be blank"})
	}
	if j.Kind == kindDeletion && strings.TrimSpace(j.Filename) == "" {
		out = append(out, registry.Violation{Field: "filename", Reason: "must name a file"})
	}
	return out
}

func started(id string) Started {
	return Started{ID: id, Next: "read the job with get_job until it settles"}
}

// toolOf is a job's tool: failing_job is served only as a task (the
// suite's fixture of a tool registered with task support "required").
func toolOf(name, description string) registry.ToolSpec {
	t := registry.Tool(name, description)
	if name == "failing_job" {
		t = t.TaskRequired()
	}
	return t
}
