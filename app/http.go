package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
)

// requireBearer refuses an MCP request without a valid token with the same
// 401 problem the HTTP API gives, before any session exists. The guard
// chain authenticates every tool call again, by the same store.
func requireBearer(tokens guards.Authenticator, next http.Handler) http.Handler {
	auth := guards.Authenticate{Tokens: tokens}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := auth.Principal(r.Context(), registry.BearerCredential(r.Header.Get("Authorization"))); err != nil {
			operations.WriteProblem(w, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// mountHealth serves liveness and readiness. They are infrastructure, not
// operations: public, and outside the registry.
func mountHealth(mux *http.ServeMux, db *bun.DB, rc *redis.Client) {
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		writeHealth(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	mux.HandleFunc("GET /health/ready", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		checks := map[string]string{}
		status := http.StatusOK
		check := func(name string, err error) {
			checks[name] = "ok"
			if err != nil {
				checks[name] = "unavailable"
				status = http.StatusServiceUnavailable
			}
		}
		check("database", db.PingContext(ctx))
		if rc != nil {
			check("redis", rc.Ping(ctx).Err())
		}
		overall := "ok"
		if status != http.StatusOK {
			overall = "degraded"
		}
		writeHealth(w, status, map[string]any{"status": overall, "checks": checks})
	})
}

func writeHealth(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Flush keeps server-sent event streams (MCP) working through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequests logs one line per request at debug level, and failures at
// warn, without query strings (they may carry filters a user typed).
func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		level := slog.LevelDebug
		if sw.status >= 500 {
			level = slog.LevelWarn
		}
		log.Log(r.Context(), level, "request", "method", r.Method, "path", r.URL.Path, "status", sw.status, "duration", time.Since(start))
	})
}
