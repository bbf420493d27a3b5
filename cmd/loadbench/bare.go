package main

import (
	"context"
	"flag"
	"net"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bare servers are the stacks Cairn is built on, doing nearly nothing:
// what a request costs before any of Cairn's code runs. Each is this
// program started in another mode, so that its CPU is a process of its own.

// smallObject is what both bare servers answer.
type smallObject struct {
	ID      string    `json:"id" doc:"Id."`
	Title   string    `json:"title" doc:"Title."`
	Version int64     `json:"version" doc:"Version."`
	At      time.Time `json:"updatedAt" doc:"Last change."`
}

func objectOf(id string) smallObject {
	return smallObject{ID: id, Title: "A small object", Version: 3, At: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
}

// serveBareHuma is the "bare-huma" mode: huma on net/http, one GET of a
// small object by id.
func serveBareHuma(args []string) error {
	fs := flag.NewFlagSet("bare-huma", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	mux := http.NewServeMux()
	api := humago.New(mux, huma.DefaultConfig("bare", "1"))
	type in struct {
		ID string `path:"id"`
	}
	type out struct{ Body smallObject }
	huma.Get(api, "/objects/{id}", func(_ context.Context, i *in) (*out, error) {
		return &out{Body: objectOf(i.ID)}, nil
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	return listenAndServe(*addr, mux)
}

// serveBareMCP is the "bare-mcp" mode: the go-sdk over streamable HTTP, one
// trivial tool answering a small object, with the transport options given.
func serveBareMCP(args []string) error {
	fs := flag.NewFlagSet("bare-mcp", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	stateless := fs.Bool("stateless", false, "serve without sessions")
	jsonResponse := fs.Bool("json", false, "answer application/json rather than an event stream")
	if err := fs.Parse(args); err != nil {
		return err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	type in struct {
		ID string `json:"id" jsonschema:"the object's id"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "get_object", Description: "Read a small object."},
		func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, smallObject, error) {
			return nil, objectOf(i.ID), nil
		})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: *stateless, JSONResponse: *jsonResponse, SessionTimeout: 30 * time.Minute})
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	return listenAndServe(*addr, mux)
}

func listenAndServe(addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}
