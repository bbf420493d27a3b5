package conformance

import (
	"context"

	"cairn.dev/cairn/registry"
)

// DeleteInput names the file confirm_delete deletes.
type DeleteInput struct {
	Filename string `json:"filename" maxLength:"200" doc:"The file to delete."`
}

// declareAskingJobs declares the background jobs that need their caller's
// input: confirm_delete, whose work waits for a confirmation (its read asks
// for it, so a task of it reports input_required until tasks/update
// answers), and test_tool_with_task, which asks a name before it starts.
func declareAskingJobs(reg *registry.Registry, start func(string, func(*ComputeInput) int) func(context.Context, *registry.Call, *ComputeInput) (registry.Record, error)) {
	job(reg, "confirm_delete", "Deletes a file once the person confirms it, in the background: its job waits for the confirmation.",
		func(_ context.Context, c *registry.Call, in *DeleteInput) (registry.Record, error) {
			return &Job{UserID: c.UserID(), Kind: kindDeletion, Filename: in.Filename, Started: c.Now.UnixMilli()}, nil
		}, started, nil)
	job(reg, "multi_input", "Waits in the background for two answers at once, then says both.",
		start(kindTwoAnswers, func(*ComputeInput) int { return 0 }), started, nil)
	greeted := func(ctx context.Context, c *registry.Call, in *ComputeInput) (registry.Record, error) {
		named := *in
		if name, ok := filled(c, "user_name", "name"); ok {
			named.Label = "Hello, " + name + "!"
		}
		return start(kindCompute, func(in *ComputeInput) int { return max(in.Seconds, 1) })(ctx, c, &named)
	}
	job(reg, "test_tool_with_task", "Asks a name, then greets it in the background.", greeted, started, func(c *registry.Call) error {
		if _, ok := filled(c, "user_name", "name"); ok || !c.CanAsk(registry.InputForm) {
			return nil
		}
		return &registry.InputNeeded{Requests: map[string]registry.InputRequest{"user_name": form("What is your name?", "name")}}
	})
}

// deletion is a deletion job as its read reports it: done once the person
// answered (deleted, or kept on a decline), else waiting, asking for the
// confirmation when the caller can be asked.
func deletion(c *registry.Call, j *Job, id string) (JobState, error) {
	s := JobState{ID: id, Status: "done", job: j, now: c.Now}
	if a, ok := c.Answer("confirm"); ok && a.Kind == registry.InputForm {
		if yes, _ := a.Values["confirm"].(bool); a.Accepted() && yes {
			s.Result = "deleted " + j.Filename
		} else {
			s.Result = "kept " + j.Filename
		}
		return s, nil
	}
	if c.CanAsk(registry.InputForm) {
		return JobState{}, &registry.InputNeeded{Requests: map[string]registry.InputRequest{"confirm": {
			Kind: registry.InputForm, Message: "Delete " + j.Filename + "?",
			Schema: map[string]any{"type": "object", "properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}, "required": []any{"confirm"}}}}}
	}
	// Nobody to ask here: the job waits, as long as its reader cannot answer.
	s.Status = "waiting"
	return s, nil
}

// twoAnswers is a job waiting for two answers, asked at once: each one
// answered is asked no more, and it is done once both are.
func twoAnswers(c *registry.Call, j *Job, id string) (JobState, error) {
	s := JobState{ID: id, Status: "done", job: j, now: c.Now}
	ask := map[string]registry.InputRequest{}
	var names []string
	for _, key := range []string{"first", "second"} {
		if name, ok := filled(c, key, "name"); ok {
			names = append(names, name)
			continue
		}
		ask[key] = registry.InputRequest{Kind: registry.InputForm, Message: "The " + key + " answer?", Schema: map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}, "confirm": map[string]any{"type": "boolean"}},
			"required": []any{"name"}}}
	}
	switch {
	case len(ask) == 0:
		s.Result = "answered: " + names[0] + " and " + names[1]
		return s, nil
	case c.CanAsk(registry.InputForm):
		return JobState{}, &registry.InputNeeded{Requests: ask}
	}
	s.Status = "waiting"
	return s, nil
}
