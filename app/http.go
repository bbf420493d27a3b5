package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/registry"
)

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
		// Asked first: the attributes would be built (boxed) for a line
		// that, at debug level, is usually dropped.
		if ctx := r.Context(); log.Enabled(ctx, level) {
			log.LogAttrs(ctx, level, "request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", sw.status), slog.Duration("duration", time.Since(start)))
		}
	})
}

// withRequestID gives every request an id: the client's X-Request-Id when
// it is well formed (registry.ValidRequestID), a fresh one otherwise. The
// id travels in the context (every log line of the request carries it),
// replaces the request's header (the MCP face reads it there), and is
// echoed on the response; problem bodies carry it as requestId.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(registry.HeaderRequestID)
		if !registry.ValidRequestID(id) {
			id = newRequestID()
		}
		if vs := r.Header[registry.HeaderRequestID]; len(vs) != 1 || vs[0] != id {
			r.Header.Set(registry.HeaderRequestID, id) // else already there, alone
		}
		r = r.WithContext(registry.WithRequestID(r.Context(), id))
		w.Header().Set(registry.HeaderRequestID, id)
		next.ServeHTTP(w, r)
	})
}

func newRequestID() string {
	var b [16]byte
	var h [32]byte
	_, _ = rand.Read(b[:])
	hex.Encode(h[:], b[:])
	return string(h[:]) // the one allocation
}

// originAllowed accepts the configured origins and the server's own, read
// when asked: the own origin has its real port only once listening.
func originAllowed(configured []string, own func() string) func(string) bool {
	return func(origin string) bool {
		o, ok := config.Origin(origin)
		if !ok {
			return false // "null", or not an origin at all
		}
		if slices.Contains(configured, o) {
			return true
		}
		u, err := url.Parse(own())
		return err == nil && strings.EqualFold(u.Scheme+"://"+u.Host, o)
	}
}
