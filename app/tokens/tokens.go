// Package tokens holds bearer tokens for development and tests: Memory
// mints and resolves them in process memory, so a product can start with
// nothing but the framework before it has accounts of its own. Nothing
// survives a restart and nothing is shared between replicas: a product in
// production provides its own guards.Authenticator and app.TokenIssuer.
package tokens

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"sync"

	"github.com/google/uuid"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// Prefix starts every token Memory mints, so a token found in a log or a
// shell history says where it came from, and Memory refuses any other
// credential without hashing it.
const Prefix = "cairn_mem_"

// maxEmail bounds the addresses Memory accepts, as an accounts store would.
const maxEmail = 180

// Memory is an in-memory token store. A token is kept only as its SHA-256
// digest, so even a dump of the process holds no usable secret; a user id
// is made once per email and stays the same for every token of that email.
// It is safe for concurrent use.
type Memory struct {
	vocab *registry.Registry

	mu     sync.Mutex
	users  map[string]string                        // email -> user id
	tokens map[[sha256.Size]byte]registry.Principal // digest -> who it is
}

var (
	_ guards.Authenticator = (*Memory)(nil)
	_ app.TokenIssuer      = (*Memory)(nil)
)

// NewMemory returns an empty store. With a registry, IssueToken refuses a
// scope the registry does not declare, so a misspelt scope fails where it
// is written instead of as a 403 later; nil accepts any scope. Read the
// vocabulary only when a token is issued: under fx the registry is filled
// after this constructor runs.
func NewMemory(vocab *registry.Registry) *Memory {
	return &Memory{vocab: vocab, users: map[string]string{}, tokens: map[[sha256.Size]byte]registry.Principal{}}
}

// IssueToken creates the user when absent and mints a token carrying scs.
// No scope at all is a token for public operations only: what a test of the
// scope guard needs when a product declares a single scope. The token is
// returned once and never stored. It implements app.TokenIssuer.
func (m *Memory) IssueToken(_ context.Context, email string, scs []registry.Scope) (string, error) {
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > maxEmail {
		return "", fmt.Errorf("email %s is not a valid address", registry.Quote(email))
	}
	if m.vocab != nil {
		for _, s := range scs {
			if !m.vocab.HasScope(s) {
				return "", fmt.Errorf("unknown scope %s; declared scopes: %s", registry.Quote(string(s)), scopeList(m.vocab.Scopes()))
			}
		}
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	token := Prefix + base64.RawURLEncoding.EncodeToString(raw)
	email = strings.ToLower(email) // one person, however the address is capitalised

	m.mu.Lock()
	defer m.mu.Unlock()
	id, ok := m.users[email]
	if !ok {
		id = uuid.NewString()
		m.users[email] = id
	}
	m.tokens[sha256.Sum256([]byte(token))] = registry.Principal{UserID: id, Email: email, Scopes: slices.Clone(scs)}
	return token, nil
}

// Authenticate resolves a token Memory minted; (nil, nil) for any other
// credential. It implements guards.Authenticator.
func (m *Memory) Authenticate(_ context.Context, credential string) (*registry.Principal, error) {
	if !strings.HasPrefix(credential, Prefix) {
		return nil, nil
	}
	digest := sha256.Sum256([]byte(credential))
	m.mu.Lock()
	p, ok := m.tokens[digest]
	m.mu.Unlock()
	if !ok {
		return nil, nil
	}
	p.Scopes = slices.Clone(p.Scopes) // the caller may not change what is stored
	return &p, nil
}

func scopeList(scs []registry.Scope) string {
	parts := make([]string, len(scs))
	for i, s := range scs {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}
