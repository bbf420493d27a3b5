// Package mail sends the product's messages: through an SMTP server when one
// is configured (github.com/wneessen/go-mail), and otherwise into a local
// outbox, a folder of the data directory that a product's command reads
// back (Outbox.List, Outbox.Read), each message's link also written to the
// log. A message that cannot be sent is an error for the caller, never
// dropped.
package mail

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is one email: plain text, with the one link it carries (a
// sign-in or confirmation address) kept apart for the outbox and the log.
type Message struct {
	ID      string    `json:"id"`
	To      string    `json:"to"`
	Subject string    `json:"subject"`
	Text    string    `json:"text"`
	Link    string    `json:"link,omitempty"`
	Created time.Time `json:"created"`
}

// Sender delivers messages. Send returns only once the message is handed
// over (to the SMTP server, or written to the outbox).
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// New returns the SMTP sender for smtpURL, or the outbox in dir when
// smtpURL is empty.
func New(smtpURL, from, dir string, log *slog.Logger) (Sender, error) {
	if smtpURL == "" {
		return NewOutbox(dir, log), nil
	}
	return NewSMTP(smtpURL, from)
}

// SMTP sends through an SMTP server.
type SMTP struct {
	from string
	host string
	opts []gomail.Option
}

// NewSMTP reads an SMTP URL: smtp://[user:password@]host[:port] (STARTTLS
// when the server offers it, port 587 by default), smtps:// (TLS from the
// first byte, port 465), and ?tls=none to refuse STARTTLS or ?tls=required
// to insist on it.
func NewSMTP(raw, from string) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return nil, fmt.Errorf("smtp_url: %q is not an smtp:// or smtps:// URL", raw)
	}
	if _, err := parseAddress(from); err != nil {
		return nil, fmt.Errorf("mail_from: %w", err)
	}
	s := &SMTP{from: from, host: u.Hostname(), opts: []gomail.Option{gomail.WithTimeout(20 * time.Second)}}
	port := 587
	if u.Scheme == "smtps" {
		port = 465
		s.opts = append(s.opts, gomail.WithSSL())
	} else {
		switch u.Query().Get("tls") {
		case "", "opportunistic":
			s.opts = append(s.opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
		case "none":
			s.opts = append(s.opts, gomail.WithTLSPolicy(gomail.NoTLS))
		case "required":
			s.opts = append(s.opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
		default:
			return nil, fmt.Errorf("smtp_url: tls=%q is not one of none, opportunistic, required", u.Query().Get("tls"))
		}
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("smtp_url: port %q is not a number", p)
		}
		port = n
	}
	s.opts = append(s.opts, gomail.WithPort(port))
	if u.User != nil {
		pw, _ := u.User.Password()
		s.opts = append(s.opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(u.User.Username()), gomail.WithPassword(pw))
	}
	return s, nil
}

// Send implements Sender.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.from); err != nil {
		return fmt.Errorf("mail: sender %s: %w", s.from, err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("mail: recipient: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	c, err := gomail.NewClient(s.host, s.opts...)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mail: sending to the SMTP server %s failed: %w", s.host, err)
	}
	return nil
}

// Outbox keeps messages as JSON files in a folder: the embedded default,
// where nothing leaves the machine.
type Outbox struct {
	dir string
	log *slog.Logger
}

// NewOutbox returns the outbox in dir (created on first use).
func NewOutbox(dir string, log *slog.Logger) *Outbox { return &Outbox{dir: dir, log: log} }

// Dir is the outbox's folder.
func (o *Outbox) Dir() string { return o.dir }

// Send implements Sender: the message is written to the outbox and its link
// to the log, so a developer can follow it without a mail server.
func (o *Outbox) Send(ctx context.Context, m Message) error {
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return fmt.Errorf("mail: outbox %s: %w", o.dir, err)
	}
	if m.Created.IsZero() {
		m.Created = time.Now().UTC()
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	m.ID = m.Created.Format("20060102T150405.000000000") + "-" + hex.EncodeToString(b)
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	// Written aside then renamed, so a reader never sees half a message.
	tmp := filepath.Join(o.dir, "."+m.ID+".tmp")
	if err := os.WriteFile(tmp, raw, 0o600); err != nil {
		return fmt.Errorf("mail: outbox %s: %w", o.dir, err)
	}
	if err := os.Rename(tmp, filepath.Join(o.dir, m.ID+".json")); err != nil {
		return fmt.Errorf("mail: outbox %s: %w", o.dir, err)
	}
	if o.log != nil {
		o.log.InfoContext(ctx, "mail kept in the outbox (no smtp_url configured)", "to", m.To, "subject", m.Subject, "link", m.Link, "id", m.ID)
	}
	return nil
}

// Forgetter is a Sender that keeps what it sent (the outbox) and can
// forget every message to an address, as an account's deletion asks.
type Forgetter interface {
	Forget(ctx context.Context, to string) error
}

var _ Forgetter = (*Outbox)(nil)

// Forget implements Forgetter: every kept message to the address is removed.
func (o *Outbox) Forget(_ context.Context, to string) error {
	ms, err := o.List()
	if err != nil {
		return err
	}
	for _, m := range ms {
		if strings.EqualFold(m.To, to) {
			if err := os.Remove(filepath.Join(o.dir, m.ID+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("mail: outbox %s: %w", o.dir, err)
			}
		}
	}
	return nil
}

// List returns the outbox's messages, oldest first.
func (o *Outbox) List() ([]Message, error) {
	entries, err := os.ReadDir(o.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Message
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		m, err := o.Read(strings.TrimSuffix(e.Name(), ".json"))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Read returns one message by id (or by a unique prefix of it).
func (o *Outbox) Read(id string) (Message, error) {
	if strings.ContainsAny(id, `/\`) || id == "" {
		return Message{}, fmt.Errorf("no message %q in the outbox", id)
	}
	raw, err := os.ReadFile(filepath.Join(o.dir, id+".json"))
	if errors.Is(err, os.ErrNotExist) {
		matches, _ := filepath.Glob(filepath.Join(o.dir, id+"*.json"))
		if len(matches) != 1 {
			return Message{}, fmt.Errorf("no message %q in the outbox %s (its list shows them)", id, o.dir)
		}
		raw, err = os.ReadFile(matches[0])
	}
	if err != nil {
		return Message{}, err
	}
	var m Message
	if err := json.Unmarshal(raw, &m); err != nil {
		return Message{}, fmt.Errorf("outbox message %s: %w", id, err)
	}
	return m, nil
}

// parseAddress checks a single bare address such as "Notes <a@b.c>" or "a@b.c".
func parseAddress(s string) (string, error) {
	if s == "" {
		return "", errors.New("a sender address is required")
	}
	if !strings.Contains(s, "@") {
		return "", fmt.Errorf("%q is not an email address", s)
	}
	return s, nil
}
