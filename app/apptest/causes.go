package apptest

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// causes keeps, by request id, the errors the application logged while
// answering: a 500 says only its request id, and a test failing on one
// shows what caused it, without -v.
type causes struct {
	mu   sync.Mutex
	byID map[string][]string
}

// maxCauses bounds what an application keeps; past it, the oldest ids
// are forgotten all at once (a test reads its causes at once).
const maxCauses = 10_000

func (c *causes) add(id, cause string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.byID) >= maxCauses {
		c.byID = map[string][]string{}
	}
	c.byID[id] = append(c.byID[id], cause)
}

func (c *causes) of(id string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.byID[id]...)
}

// recording is a log handler that keeps every error record's message and
// attributes under its request id, then hands the record on.
type recording struct {
	next   slog.Handler
	causes *causes
	attrs  []slog.Attr
}

func (h recording) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelError || h.next.Enabled(ctx, l)
}

func (h recording) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		var id string
		var b strings.Builder
		b.WriteString(r.Message)
		write := func(a slog.Attr) bool {
			if a.Key == "request_id" {
				id = a.Value.String()
				return true
			}
			fmt.Fprintf(&b, " %s=%v", a.Key, a.Value.Any())
			return true
		}
		for _, a := range h.attrs {
			write(a)
		}
		r.Attrs(write)
		if id != "" {
			h.causes.add(id, b.String())
		}
	}
	if !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h recording) WithAttrs(attrs []slog.Attr) slog.Handler {
	return recording{next: h.next.WithAttrs(attrs), causes: h.causes, attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h recording) WithGroup(name string) slog.Handler {
	return recording{next: h.next.WithGroup(name), causes: h.causes, attrs: h.attrs}
}

// Causes lists what the application logged as errors while answering the
// request with this id: the cause of a 500, as the server logged it.
func (a *App) Causes(requestID string) []string { return a.causes.of(requestID) }

// Explain is an answer as a failing test should show it: its body and,
// for a failure of the server (5xx), what the server logged as its cause.
func (a *App) Explain(o Outcome) string {
	out := string(o.Raw)
	if o.Status < 500 {
		return out
	}
	id, _ := o.Body["requestId"].(string)
	cs := a.Causes(id)
	if len(cs) == 0 {
		return out + "\n\tcause: nothing was logged for request " + id
	}
	return out + "\n\tcause: " + strings.Join(cs, "\n\tcause: ")
}
