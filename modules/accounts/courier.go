package accounts

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// Sign-in requests are answered before anything is looked up: the request
// path does the same work for a known and an unknown address (check the
// address, hand it over, answer the neutral text), and the courier, in the
// background, finds the person, makes the link and mails it. How long a
// request takes then tells nothing of who has an account, nor does a slow
// mail server.

// courierWorkers deliver links at once; courierQueue requests wait beyond
// them, and past it a request is dropped (logged): the person asks again.
const (
	courierWorkers = 4
	courierQueue   = 1024
	courierTimeout = 30 * time.Second
)

// inFlight counts the links handed over and not yet delivered, by every
// courier of the process (Settle).
var inFlight atomic.Int64

type courier struct {
	once    sync.Once
	work    chan linkRequest
	workers sync.WaitGroup
	mu      sync.RWMutex // held to send on work; Close takes it whole
	closed  bool
}

type linkRequest struct {
	ctx         context.Context
	email, next string
}

// handOver queues a sign-in link for email, leading to next once signed in
// (SafeNext); it never blocks.
func (a *Auth) handOver(ctx context.Context, email, next string) {
	c := &a.courier
	c.once.Do(func() {
		c.work = make(chan linkRequest, courierQueue)
		for range courierWorkers {
			c.workers.Add(1)
			go func() {
				defer c.workers.Done()
				for r := range c.work {
					a.deliverLink(r.ctx, r.email, r.next)
					inFlight.Add(-1)
				}
			}()
		}
	})
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return
	}
	inFlight.Add(1)
	select {
	case c.work <- linkRequest{ctx: context.WithoutCancel(ctx), email: email, next: SafeNext(next)}:
	default:
		inFlight.Add(-1)
		a.log.ErrorContext(ctx, "too many sign-in links waiting to be mailed: a request was dropped; the person has to ask again")
	}
}

// deliverLink makes and mails the link of a known person without a valid
// pending one (with next, a link replaces the pending one: it is asked from
// a page waiting for it); an unknown address gets nothing.
func (a *Auth) deliverLink(ctx context.Context, email, next string) {
	ctx, cancel := context.WithTimeout(ctx, courierTimeout)
	defer cancel()
	u, err := a.userByEmail(ctx, email)
	if err != nil {
		a.log.ErrorContext(ctx, "a sign-in request could not be read; the person has to ask again", "err", err)
		return
	}
	if u == nil {
		return
	}
	link, err := a.newMagicLink(ctx, u.ID, next != "", next)
	if err != nil {
		a.log.ErrorContext(ctx, "a sign-in link could not be made; the person has to ask again", "user", u.ID, "err", err)
		return
	}
	if link == "" {
		return // a pending link stays the only valid one
	}
	if err := a.mail.Send(ctx, a.message("sign-in", u.Locale, u.Email, link)); err != nil {
		// The link cannot be used without its mail: forget it, so the next
		// request makes one.
		_, _ = storage.Conn(ctx, a.store.db).NewDelete().Table("magic_links").Where("user_id = ? AND consumed_at IS NULL", u.ID).Exec(ctx)
		a.log.ErrorContext(ctx, "a sign-in link could not be mailed; the person has to ask again", "user", u.ID, "err", err)
	}
}

// RequestLinkBack is POST /auth/request-link asked from a page of this
// server waiting for the person to sign in (an OAuth consent): the same
// neutral work, and the link, once opened, sends the browser back to next.
// The caller applies the request-link limits first.
func (a *Auth) RequestLinkBack(ctx context.Context, email, next string) *registry.Error {
	email, verr := NormalizeEmail("email", email)
	if verr != nil {
		return verr
	}
	a.handOver(ctx, email, next)
	return nil
}

// Settle waits until every sign-in request handed over in this process is
// delivered (or ctx ends): for a test that reads the mail next, without a
// hold on the server's door.
func Settle(ctx context.Context) error { return wait(ctx, &inFlight) }

func wait(ctx context.Context, n *atomic.Int64) error {
	for n.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return nil
}

// Close stops taking sign-in requests and waits, until ctx ends, for those
// taken to be delivered.
func (a *Auth) Close(ctx context.Context) error {
	c := &a.courier
	c.mu.Lock()
	already := c.closed
	c.closed = true
	c.once.Do(func() {}) // no worker will start
	if !already && c.work != nil {
		close(c.work)
	}
	c.mu.Unlock()
	if already || c.work == nil {
		return nil
	}
	done := make(chan struct{})
	go func() { c.workers.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
