package app

import (
	"context"
	"io"
	"log/slog"
	"os"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/registry"
)

// NewLogger returns the process logger: readable text on a terminal, JSON
// otherwise (log_format auto), at the configured level.
func NewLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	format := cfg.LogFormat
	if format == "auto" {
		format = "json"
		if f, ok := w.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				format = "text"
			}
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// WithRequestIDs returns log adding the request's id (registry.RequestID)
// to every line logged with a request's context, as request_id.
// app.Options applies it to the logger it is given.
func WithRequestIDs(log *slog.Logger) *slog.Logger {
	if _, done := log.Handler().(requestIDHandler); done {
		return log
	}
	return slog.New(requestIDHandler{log.Handler()})
}

type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := registry.RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}
