package mail_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/mail"
	"cairn.dev/cairn/modules/mail/mailtest"
)

func TestOutboxKeepsMessages(t *testing.T) {
	t.Parallel()
	box := mail.NewOutbox(t.TempDir(), slog.New(slog.DiscardHandler))
	none, err := box.List()
	require.NoError(t, err)
	require.Empty(t, none)
	for _, to := range []string{"a@example.com", "b@example.com"} {
		require.NoError(t, box.Send(context.Background(), mail.Message{To: to, Subject: "Hi", Text: "go to https://x/y", Link: "https://x/y"}))
	}
	ms, err := box.List()
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.Equal(t, "a@example.com", ms[0].To, "oldest first")
	one, err := box.Read(ms[1].ID)
	require.NoError(t, err)
	require.Equal(t, "b@example.com", one.To)
	_, err = box.Read("../etc/passwd")
	require.Error(t, err)
}

func TestSMTPSends(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t)
	s, err := mail.NewSMTP(srv.URL, "Notes <no-reply@notes.example>")
	require.NoError(t, err)
	long := "https://front.example/auth/verify/" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	require.NoError(t, s.Send(context.Background(), mail.Message{To: "rider@example.com", Subject: "Votre accès à Notes", Text: "Ouvrez :\n\n" + long + "\n", Link: long}))
	m := srv.Next(t, 1)
	require.Equal(t, []string{"rider@example.com"}, m.To)
	require.Equal(t, "Votre accès à Notes", m.Subject)
	require.Equal(t, long, m.Link(), "a long link arrives whole")
}

func TestSMTPFailureIsAnError(t *testing.T) {
	t.Parallel()
	s, err := mail.NewSMTP("smtp://127.0.0.1:1?tls=none", "no-reply@notes.example")
	require.NoError(t, err)
	require.Error(t, s.Send(context.Background(), mail.Message{To: "rider@example.com", Subject: "x", Text: "x"}))
}

func TestSMTPURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url, from string
		ok        bool
	}{
		{"smtp://mail.example.com", "a@b.c", true},
		{"smtps://user:pw@mail.example.com:465", "a@b.c", true},
		{"smtp://mail.example.com?tls=required", "a@b.c", true},
		{"smtp://mail.example.com?tls=maybe", "a@b.c", false},
		{"http://mail.example.com", "a@b.c", false},
		{"smtp://mail.example.com:port", "a@b.c", false},
		{"smtp://mail.example.com", "", false},
	} {
		_, err := mail.NewSMTP(tc.url, tc.from)
		require.Equal(t, tc.ok, err == nil, "%s: %v", tc.url, err)
	}
}
