package operations

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
)

// ProblemEvent is the last event of a stream closed because its credential
// no longer holds; its data is the problem a new call would get.
const ProblemEvent = "problem"

// StreamRetry is the reconnection delay every stream announces (retry:),
// which a browser's EventSource waits before reconnecting.
const StreamRetry = 3 * time.Second

// HeaderLastEventID is the header a reconnecting EventSource sends: the id
// of the last event it received.
const HeaderLastEventID = "Last-Event-ID"

// TicketParam is the query parameter of an event stream that carries a
// stream ticket instead of an Authorization header, which a browser's
// EventSource cannot send.
const TicketParam = "ticket"

// InvalidTicket is what a stream opened with a ticket that opens nothing
// answers (401): one answer for a ticket unknown, already used, expired or
// issued for another stream, so that it tells nothing about any of them.
const InvalidTicket = "the stream ticket is not valid (unknown, already used, expired, or for another stream); ask for a new one"

// AcceptTickets lets event streams be opened with a stream ticket (the
// ticket query parameter) instead of a bearer token. A ticket is redeemed
// once, and only for the operation and record it was issued for; the
// stream then runs under the credential of the caller who asked for it,
// whose revocation closes it as it closes any stream. A ticket is never a
// bearer token: Authorization does not take one, nor does any other
// operation.
func (f *Face) AcceptTickets(t progress.Tickets) { f.tickets = t }

var streamerType = reflect.TypeFor[registry.Streamer]()

// streams reports whether op answers an event stream.
func streams(op *registry.Operation) bool { return op.OutputType.Implements(streamerType) }

// withoutTicket drops the ticket parameter of a stream's query: it is
// transport, read by streamCredential, never an argument.
func withoutTicket(op *registry.Operation, q url.Values) url.Values {
	if streams(op) {
		q.Del(TicketParam)
	}
	return q
}

// streamCredential reads what a stream's caller sent besides the call:
// Last-Event-ID, and a ticket when no Authorization header is sent, which
// it redeems for the credential it carries. It answers false, having
// written the refusal, for a ticket that opens nothing.
func (f *Face) streamCredential(hc huma.Context, c *registry.Call) bool {
	c.LastEventID = hc.Header(HeaderLastEventID)
	u := hc.URL()
	ticket := u.Query().Get(TicketParam)
	if ticket == "" || c.Credential != "" || hc.Header("Authorization") != "" {
		return true // a bearer token wins; a ticket beside it is not looked at
	}
	if f.tickets == nil {
		f.writeError(hc, c, registry.Fail(registry.KindUnauthenticated, InvalidTicket))
		return false
	}
	g, ok, err := f.tickets.Redeem(hc.Context(), ticket)
	switch {
	case err != nil:
		f.writeError(hc, c, err)
		return false
	case !ok || g.Op != c.Op.ID || g.ID != c.Var(c.Op.Owner.Var) || g.Credential == "":
		f.writeError(hc, c, registry.Fail(registry.KindUnauthenticated, InvalidTicket))
		return false
	}
	c.Credential = g.Credential
	return true
}

// writeStream serves an event stream as server-sent events until the client
// goes away or the stream ends. The 200 goes out with the first event,
// after a retry: line, so a stream that fails before sending anything (its
// source is down) answers its problem instead: a 503, never a 200 that
// sends nothing; one with nothing to follow answers 204, which stops a
// browser's EventSource from reconnecting. Every streamCheck the call's
// credential is judged again; once it no longer holds, the stream ends with
// a ProblemEvent.
func (f *Face) writeStream(hc huma.Context, c *registry.Call, st registry.Streamer) {
	ctx, cancel := context.WithCancel(hc.Context())
	defer cancel()
	w := hc.BodyWriter()
	flush := func() {
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	var (
		mu      sync.Mutex // guards revoked against the re-check
		started bool
		revoked error
	)
	start := func() {
		if started {
			return
		}
		started = true
		hc.SetHeader("Content-Type", "text/event-stream")
		hc.SetHeader("Cache-Control", "no-store")
		hc.SetHeader("X-Accel-Buffering", "no") // proxies must not hold events back
		hc.SetStatus(http.StatusOK)
		_, _ = io.WriteString(w, "retry: "+strconv.FormatInt(StreamRetry.Milliseconds(), 10)+"\n\n")
	}
	rechecked := make(chan struct{})
	go func() {
		defer close(rechecked)
		tick := time.NewTicker(f.streamCheck)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if err := f.chain.Recheck(ctx, c); err != nil && ctx.Err() == nil {
				mu.Lock()
				revoked = err
				mu.Unlock()
				cancel()
				return
			}
		}
	}()
	err := st.Stream(ctx, func(e registry.StreamEvent) error {
		b, err := json.Marshal(e.Data)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if revoked != nil {
			return revoked // nothing more for a credential that no longer holds
		}
		start()
		_, err = io.WriteString(w, frame(e, b))
		flush()
		return err
	})
	cancel()
	<-rechecked // from here on, this goroutine alone reads and writes
	switch {
	case !started && revoked != nil:
		f.writeError(hc, c, revoked)
	case !started && errors.Is(err, registry.ErrNothingToFollow):
		hc.SetHeader("Cache-Control", "no-store")
		hc.SetStatus(http.StatusNoContent)
	case !started && err != nil:
		f.writeError(hc, c, err)
	case revoked != nil:
		p := registry.AsError(revoked).Problem()
		p.RequestID = c.RequestID
		b, _ := json.Marshal(p)
		_, _ = io.WriteString(w, frame(registry.StreamEvent{Event: ProblemEvent}, b))
		flush()
	case !started:
		start() // a stream that ended before its first event: an empty one
		flush()
	}
}

// frame is one event as server-sent events write it. An event without a
// type is a comment, which keeps the connection alive and is not
// dispatched. An id never holds a line break, which would end it early.
func frame(e registry.StreamEvent, data []byte) string {
	if e.Event == "" {
		return ": " + string(data) + "\n\n"
	}
	var b strings.Builder
	if id := strings.NewReplacer("\n", "", "\r", "", "\x00", "").Replace(e.ID); id != "" {
		b.WriteString("id: " + id + "\n")
	}
	b.WriteString("event: " + e.Event + "\ndata: " + string(data) + "\n\n")
	return b.String()
}
