// Package mailtest runs a real SMTP server in process
// (github.com/emersion/go-smtp) that keeps what it receives, so tests read
// the mail the product sent through its SMTP sender, not through a mock.
package mailtest

import (
	"bytes"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Mail is one message the server received, its body decoded.
type Mail struct {
	From    string
	To      []string
	Subject string
	Body    string
}

// Server is an SMTP server keeping every message.
type Server struct {
	URL string // smtp://127.0.0.1:PORT?tls=none, for smtp_url

	mu      sync.Mutex
	got     []Mail
	arrived chan struct{}
}

// Start listens on a free local port until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{URL: "smtp://" + ln.Addr().String() + "?tls=none", arrived: make(chan struct{}, 1000)}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// Messages are the messages received so far, oldest first.
func (s *Server) Messages() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.got...)
}

// To are the messages received for addr.
func (s *Server) To(addr string) []Mail {
	var out []Mail
	for _, m := range s.Messages() {
		for _, r := range m.To {
			if strings.EqualFold(r, addr) {
				out = append(out, m)
			}
		}
	}
	return out
}

// Next waits for the n-th message to arrive (1-based) and returns it; it
// fails the test if it has not after ten seconds.
func (s *Server) Next(t testing.TB, n int) Mail {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if ms := s.Messages(); len(ms) >= n {
			return ms[n-1]
		}
		select {
		case <-s.arrived:
		case <-deadline:
			t.Fatalf("mail %d never arrived (%d received)", n, len(s.Messages()))
		}
	}
}

var linkPattern = regexp.MustCompile(`https?://\S+`)

// Link is the first address in the message's body.
func (m Mail) Link() string { return linkPattern.FindString(m.Body) }

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s    *Server
	from string
	to   []string
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }
func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	x.from = from
	return nil
}
func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m := Mail{From: x.from, To: x.to}
	if msg, err := netmail.ReadMessage(bytes.NewReader(raw)); err == nil {
		dec := new(mimeDecoder)
		m.Subject, _ = dec.DecodeHeader(msg.Header.Get("Subject"))
		body, _ := io.ReadAll(msg.Body)
		if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
			body, _ = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
		}
		m.Body = string(body)
	}
	x.s.mu.Lock()
	x.s.got = append(x.s.got, m)
	x.s.mu.Unlock()
	x.s.arrived <- struct{}{}
	return nil
}

type mimeDecoder = mime.WordDecoder
