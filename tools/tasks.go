package tools

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/registry"
)

// TasksExtension is the identifier of the tasks extension of 2026-07-28.
const TasksExtension = "io.modelcontextprotocol/tasks"

// Task timing, as a task answer states it.
const (
	// TaskTTL is how long a task stays readable after it was created.
	TaskTTL = time.Hour
	// TaskPollInterval is how often a client is asked to poll a task: the
	// computations a task follows take seconds.
	TaskPollInterval = 2 * time.Second
)

// Task statuses of the tasks extension.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// ErrNoTask is returned by a TaskStore for a task it does not hold (never
// created, or past its TTL).
var ErrNoTask = errors.New("no such task")

// Task is what is kept of a task: who created it and the read that follows
// its work. Its state is never kept: each tasks/get runs the read again,
// through the guard chain, as the caller.
type Task struct {
	ID          string            `json:"id"`
	UserID      string            `json:"userId"`
	Follow      registry.FollowUp `json:"follow"`
	CreatedAt   time.Time         `json:"createdAt"`
	TTL         time.Duration     `json:"ttl"`
	CancelledAt *time.Time        `json:"cancelledAt,omitempty"`
	// Answers are the input the caller gave the work through tasks/update,
	// by the key its read asked them under: every read of the task gets
	// them (Call.Answer), on every replica.
	Answers map[string]registry.InputAnswer `json:"answers,omitempty"`
}

// TaskStore keeps tasks where every replica reads them (Redis when
// configured), each for its TTL.
type TaskStore interface {
	Save(ctx context.Context, t *Task) error
	Load(ctx context.Context, id string) (*Task, error)
}

// MemoryTasks keeps tasks in this process: for a single process without
// Redis.
type MemoryTasks struct {
	mu    sync.Mutex
	tasks map[string]Task
}

// NewMemoryTasks returns an empty in-process TaskStore.
func NewMemoryTasks() *MemoryTasks { return &MemoryTasks{tasks: map[string]Task{}} }

// Save implements TaskStore.
func (m *MemoryTasks) Save(_ context.Context, t *Task) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	for id, x := range m.tasks {
		if now.After(x.CreatedAt.Add(x.TTL)) {
			delete(m.tasks, id)
		}
	}
	m.tasks[t.ID] = *t
	return nil
}

// Load implements TaskStore.
func (m *MemoryTasks) Load(_ context.Context, id string) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.tasks[id]
	if !ok || time.Now().After(t.CreatedAt.Add(t.TTL)) {
		return nil, ErrNoTask
	}
	return &t, nil
}

// AcceptTasks lets operations declared Dispatches answer a client of the
// tasks extension with a task, kept in store, and serves tasks/get,
// tasks/update and tasks/cancel.
func (f *Face) AcceptTasks(store TaskStore) {
	f.tasks = store
	f.server.AddReceivingMiddleware(f.taskMiddleware)
	mustAdd(mcp.AddReceivingCustomMethod(f.server, "tasks/get", f.taskGet))
	mustAdd(mcp.AddReceivingCustomMethod(f.server, "tasks/update", f.taskUpdate))
	mustAdd(mcp.AddReceivingCustomMethod(f.server, "tasks/cancel", f.taskCancel))
}

func mustAdd(err error) {
	if err != nil {
		panic(err) // a method name the SDK already serves: a programming error
	}
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
	// InputResponses are read one by one (responses): an answer of no
	// known shape, under a key the work never asked, is ignored, not a
	// refusal of the whole update.
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// responses are the answers of p that have a known shape.
func (p *taskParams) responses() mcp.InputResponseMap {
	out := mcp.InputResponseMap{}
	for key, raw := range p.InputResponses {
		wrapped, _ := json.Marshal(map[string]json.RawMessage{key: raw})
		var one mcp.InputResponseMap
		if err := json.Unmarshal(wrapped, &one); err == nil && one[key] != nil {
			out[key] = one[key]
		}
	}
	return out
}

// taskResult is a task as the extension sends it: flat, the task's fields
// beside the result's own (CreateTaskResult on tools/call, DetailedTask on
// tasks/get).
type taskResult struct {
	mcp.ResultBase
	ResultType     string              `json:"resultType"`
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	StatusMessage  string              `json:"statusMessage,omitempty"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	TTLMs          int64               `json:"ttlMs"`
	PollIntervalMs int64               `json:"pollIntervalMs,omitempty"`
	Result         *mcp.CallToolResult `json:"result,omitempty"`
	Error          *taskError          `json:"error,omitempty"`
	InputRequests  mcp.InputRequestMap `json:"inputRequests,omitempty"`
}

// taskError is a protocol-level failure of a task, in the JSON-RPC error's
// shape.
type taskError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// ackResult is the empty answer of tasks/update and tasks/cancel.
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

type (
	slotKey       struct{}
	credentialKey struct{}
)

// taskSlot carries, from a tool handler to the middleware that answers the
// call, the task the call became.
type taskSlot struct{ task *taskResult }

// taskMiddleware answers a tools/call that became a task with the task,
// and hands the tasks methods the request's credential.
func (f *Face) taskMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if extra := req.GetExtra(); extra != nil && extra.Header != nil {
			ctx = context.WithValue(ctx, credentialKey{}, registry.BearerCredential(extra.Header.Get("Authorization")))
		}
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		slot := &taskSlot{}
		res, err := next(context.WithValue(ctx, slotKey{}, slot), method, req)
		if err == nil && slot.task != nil {
			return slot.task, nil
		}
		return res, err
	}
}

// wantsTasks reports whether the caller speaks the tasks extension in this
// request: 2026-07-28, the extension among its declared capabilities.
func wantsTasks(caps *mcp.ClientCapabilities, version string) bool {
	if version < Revision20260728 || caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

// missingTasks is the refusal of a caller that did not declare the tasks
// extension where it is needed.
func missingTasks(why string) error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{TasksExtension: map[string]any{}}}})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities,
		Message: why + ": declare the " + TasksExtension + " extension in the request's client capabilities", Data: data}
}

// becomeTask makes a finished call into a task when its operation
// dispatches work, the caller speaks the extension, and the output names
// work still running. It reports whether it did.
func (f *Face) becomeTask(ctx context.Context, req *mcp.CallToolRequest, c *registry.Call) (bool, error) {
	slot, _ := ctx.Value(slotKey{}).(*taskSlot)
	if f.tasks == nil || slot == nil || !c.Op.Dispatches || !wantsTasks(req.ClientCapabilities(), revision(req)) {
		return false, nil
	}
	fo, ok := c.Output.(registry.Followed)
	if !ok || fo.FollowUp().Zero() {
		return false, nil
	}
	t := &Task{ID: rand.Text(), UserID: c.UserID(), Follow: fo.FollowUp(), CreatedAt: f.now().UTC(), TTL: TaskTTL}
	// Durable before it is answered: a tasks/get on any replica finds it.
	if err := f.tasks.Save(ctx, t); err != nil {
		return false, err
	}
	slot.task = &taskResult{ResultType: "task", TaskID: t.ID, Status: TaskWorking,
		StatusMessage: "the work runs in the background; poll tasks/get",
		CreatedAt:     stamp(t.CreatedAt), LastUpdatedAt: stamp(t.CreatedAt),
		TTLMs: t.TTL.Milliseconds(), PollIntervalMs: TaskPollInterval.Milliseconds()}
	return true, nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// noTask answers a tasks method for a task the caller cannot read:
// unknown, expired and another user's are the same -32602.
func noTask(id string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown task %q", id)}
}

// requireTasks refuses a tasks method from a caller that did not declare
// the extension in this request (-32021, answered with 400), and answers
// the capabilities it declared.
func requireTasks(p *taskParams) (*mcp.ClientCapabilities, string, error) {
	var caps *mcp.ClientCapabilities
	var version string
	if m := p.GetMeta(); m != nil {
		version, _ = m[mcp.MetaKeyProtocolVersion].(string)
		if raw, err := json.Marshal(m[mcp.MetaKeyClientCapabilities]); err == nil {
			_ = json.Unmarshal(raw, &caps)
		}
	}
	if wantsTasks(caps, version) {
		return caps, version, nil
	}
	return nil, "", missingTasks("the tasks methods need the extension")
}

// state is a task as its read reports it now, for this caller.
func (f *Face) state(ctx context.Context, p *taskParams) (*Task, *taskResult, error) {
	caps, version, err := requireTasks(p)
	if err != nil {
		return nil, nil, err
	}
	t, err := f.tasks.Load(ctx, p.TaskID)
	if errors.Is(err, ErrNoTask) {
		return nil, nil, noTask(p.TaskID)
	}
	if err != nil {
		return nil, nil, err
	}
	op, ok := f.reg.Lookup(t.Follow.Op)
	if !ok {
		return nil, nil, noTask(p.TaskID)
	}
	cred, _ := ctx.Value(credentialKey{}).(string)
	vars := make(map[string]string, len(t.Follow.Vars))
	for k, v := range t.Follow.Vars {
		vars[k] = v
	}
	// The read may ask for input the work waits for (input_required): what
	// the caller can answer is what this request declares, and what it
	// answered through tasks/update is the task's.
	c := &registry.Call{Face: registry.FaceMCP, Now: f.now(), Op: op, Vars: vars, Credential: cred, Args: map[string]json.RawMessage{},
		Askable: askable(version, caps), InputAnswers: t.Answers}
	runErr := f.chain.Run(ctx, c)
	if c.Principal == nil || c.UserID() != t.UserID {
		return nil, nil, noTask(p.TaskID) // another user's task is nobody's
	}
	out := &taskResult{ResultType: "complete", TaskID: t.ID, CreatedAt: stamp(t.CreatedAt), LastUpdatedAt: stamp(f.now()),
		TTLMs: t.TTL.Milliseconds(), PollIntervalMs: TaskPollInterval.Milliseconds()}
	if t.CancelledAt != nil {
		out.Status, out.LastUpdatedAt, out.PollIntervalMs = TaskCancelled, stamp(*t.CancelledAt), 0
		return t, out, nil
	}
	var asked *registry.InputRequired
	if errors.As(runErr, &asked) {
		// The work waits for its caller: the requests, never a state (the
		// answers come back through tasks/update, and are kept on the task).
		out.Status, out.StatusMessage = TaskInputRequired, "the work waits for input: answer with tasks/update"
		out.InputRequests = inputRequests(asked).InputRequests
		return t, out, nil
	}
	if runErr != nil {
		e := registry.AsError(runErr)
		if e.Kind == registry.KindInternal || e.Kind == registry.KindUnavailable {
			return nil, nil, runErr // the read failed, not the work: poll again
		}
		out.Status, out.Result = TaskCompleted, f.errorResult(ctx, c, runErr)
		return t, out, nil
	}
	s := registry.Settlement{Settled: true}
	if st, ok := c.Output.(registry.Settling); ok {
		s = st.Settlement()
	}
	if !s.Settled {
		out.Status, out.StatusMessage = TaskWorking, progressWords(s)
		return t, out, nil
	}
	if s.Broken != "" {
		out.Status, out.StatusMessage, out.PollIntervalMs = TaskFailed, s.Broken, 0
		out.Error = &taskError{Code: jsonrpc.CodeInternalError, Message: s.Broken}
		return t, out, nil
	}
	res, err := outputResult(f.texts, c.Output)
	if err != nil {
		return nil, nil, err
	}
	if s.Failure != "" {
		res.IsError = true
		res.Content = append([]mcp.Content{&mcp.TextContent{Text: s.Failure}}, res.Content...)
		out.StatusMessage = s.Failure
	}
	out.Status, out.Result, out.PollIntervalMs = TaskCompleted, res, 0
	return t, out, nil
}

// progressWords says how far unsettled work got.
func progressWords(s registry.Settlement) string {
	words := s.Message
	if s.Total > 0 {
		words = fmt.Sprintf("%d of %d computations settled", s.Done, s.Total) + sep(words) + words
	}
	return words
}

func sep(s string) string {
	if s == "" {
		return ""
	}
	return "; "
}

func (f *Face) taskGet(ctx context.Context, _ *mcp.ServerSession, p *taskParams) (*taskResult, error) {
	_, out, err := f.state(ctx, p)
	return out, err
}

// taskUpdate gives a task the input its work waits for: the answers to
// the requests its read asks now are kept on the task (answers under
// other keys are ignored), and the next read of the task gets them, on
// any replica. A task that waits for nothing is acknowledged alike.
func (f *Face) taskUpdate(ctx context.Context, _ *mcp.ServerSession, p *taskParams) (*ackResult, error) {
	t, out, err := f.state(ctx, p)
	if err != nil {
		return nil, err
	}
	if out.Status == TaskInputRequired && len(p.InputResponses) > 0 {
		given := answersOf(p.responses())
		kept := false
		for key := range out.InputRequests {
			if a, ok := given[key]; ok {
				if t.Answers == nil {
					t.Answers = map[string]registry.InputAnswer{}
				}
				t.Answers[key], kept = a, true
			}
		}
		if kept {
			if err := f.tasks.Save(ctx, t); err != nil {
				return nil, err
			}
		}
	}
	return &ackResult{ResultType: "complete"}, nil
}

// taskCancel marks a task cancelled unless it already settled: the
// background work itself is the product's, and settles as it will; the
// task reports cancelled from then on, on every replica.
func (f *Face) taskCancel(ctx context.Context, _ *mcp.ServerSession, p *taskParams) (*ackResult, error) {
	t, out, err := f.state(ctx, p)
	if err != nil {
		return nil, err
	}
	if out.Status == TaskWorking || out.Status == TaskInputRequired {
		now := f.now().UTC()
		t.CancelledAt = &now
		if err := f.tasks.Save(ctx, t); err != nil {
			return nil, err
		}
	}
	return &ackResult{ResultType: "complete"}, nil
}
