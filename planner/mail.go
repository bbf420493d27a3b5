package planner

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/mail"
)

// OutboxDir is where mail goes when no smtp_url is configured.
func OutboxDir(cfg config.Config) string { return filepath.Join(cfg.DataDir, "outbox") }

// Mailer is the SMTP sender, or the outbox on the embedded default.
func Mailer(cfg config.Config, set Settings, log *slog.Logger) (mail.Sender, error) {
	return mail.New(set.SMTPURL, set.MailFrom, OutboxDir(cfg), log)
}

// AuthSettings points mailed links at the front, by default the server
// itself. Without auth_secret, a secret is drawn once and kept in
// data_dir, so that refresh tokens and links survive a restart and the
// commands share it with the server; replicas must set auth_secret.
func AuthSettings(cfg config.Config, set Settings) (accounts.Settings, error) {
	front := set.FrontendURL
	if front == "" {
		front = cfg.PublicURL
	}
	if front == "" {
		front = "http://" + cfg.Addr
	}
	secret := set.AuthSecret
	if secret == "" {
		var err error
		if secret, err = localSecret(cfg.DataDir); err != nil {
			return accounts.Settings{}, fmt.Errorf("auth_secret is not set and none could be kept in %s: %w", cfg.DataDir, err)
		}
	}
	return accounts.Settings{FrontendURL: strings.TrimRight(front, "/"), Secret: secret}, nil
}

// localSecret reads the secret kept in dir, drawing it the first time.
func localSecret(dir string) (string, error) {
	path := filepath.Join(dir, "auth_secret")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 16 {
		return strings.TrimSpace(string(b)), nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	secret := hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) { // drawn meanwhile by another process
		b, err := os.ReadFile(path)
		return strings.TrimSpace(string(b)), err
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = f.WriteString(secret + "\n")
	return secret, err
}
