package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// authorization is a pending authorization, then its code.
type authorization struct {
	bun.BaseModel `bun:"table:oauth_authorizations"`

	ID            string    `bun:"id,pk"`
	ClientID      string    `bun:"client_id"`
	UserID        *string   `bun:"user_id"` // the person who first opened the consent
	RedirectURI   string    `bun:"redirect_uri"`
	Scope         string    `bun:"scope"`
	Resource      string    `bun:"resource"`
	CodeChallenge string    `bun:"code_challenge"`
	State         string    `bun:"state"`
	CSRF          string    `bun:"csrf"`
	CodeHash      *string   `bun:"code_hash"`
	Status        string    `bun:"status"`
	CreatedAt     time.Time `bun:"created_at"`
	ExpiresAt     time.Time `bun:"expires_at"`
}

// authorize checks an authorization request and keeps it pending, for a
// signed-in person to approve. Until the client and its redirect URI are
// known good, a refusal is shown here; after, it goes back to the client
// (RFC 6749 §4.1.2.1).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ctx := r.Context()
	c, err := s.client(ctx, q.Get("client_id"), r.Header.Get(registry.HeaderClientAddress))
	var refused *ClientRefusal
	if errors.As(err, &refused) {
		page(w, http.StatusBadRequest, "Application refused", refused.Code+": "+refused.Description+".")
		return
	}
	if err != nil {
		page(w, http.StatusInternalServerError, "Something went wrong", "The request could not be read; try again.")
		return
	}
	if c == nil {
		page(w, http.StatusBadRequest, "Unknown application", "The application asking for access is not registered here.")
		return
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.redirects()) == 1 {
		redirect = c.redirects()[0]
	}
	if redirectProblem(redirect) != "" || !c.redirectAllowed(redirect) {
		page(w, http.StatusBadRequest, "Wrong return address", "The application asked to be answered at an address it did not register.")
		return
	}
	back := func(code, description string) {
		redirectTo(w, r, redirect, url.Values{"error": {code}, "error_description": {description}, "state": {q.Get("state")}, "iss": {s.issuer()}})
	}
	if q.Get("response_type") != "code" {
		back("unsupported_response_type", "only the authorization code flow (response_type=code) is supported")
		return
	}
	if q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256" {
		back("invalid_request", "PKCE is required, with code_challenge_method=S256")
		return
	}
	if len(q.Get("code_challenge")) < 43 || len(q.Get("code_challenge")) > 128 {
		back("invalid_request", "code_challenge is not an S256 challenge")
		return
	}
	scopes := parseScopes(q.Get("scope"))
	if len(scopes) == 0 {
		scopes = s.scopes()
	}
	for _, sc := range scopes {
		if !slices.Contains(s.scopes(), sc) {
			back("invalid_scope", "unknown scope "+string(sc))
			return
		}
	}
	resource := q.Get("resource")
	if resource == "" {
		resource = s.resources()[0]
	}
	if !slices.Contains(s.resources(), resource) {
		back("invalid_target", "tokens are issued only for this server's resources")
		return
	}
	now := s.now()
	a := &authorization{
		ID: randomToken(), ClientID: c.ID, RedirectURI: redirect, Scope: registry.JoinScopes(scopes), Resource: resource,
		CodeChallenge: q.Get("code_challenge"), State: q.Get("state"), CSRF: randomToken(),
		Status: statusPending, CreatedAt: now, ExpiresAt: now.Add(PendingTTL),
	}
	if _, err := storage.Conn(ctx, s.db).NewInsert().Model(a).Exec(ctx); err != nil {
		page(w, http.StatusInternalServerError, "Something went wrong", "The request could not be kept; try again.")
		return
	}
	http.Redirect(w, r, PendingPath+a.ID, http.StatusFound)
}

func redirectTo(w http.ResponseWriter, r *http.Request, base string, v url.Values) {
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, sentBack(base, v).ResourceLocation(), http.StatusSeeOther)
}

// settle moves a pending authorization to status, once.
func (s *Server) settle(ctx context.Context, id, status string, codeHash *string, expires time.Time) bool {
	q := storage.Conn(ctx, s.db).NewUpdate().Model((*authorization)(nil)).Set("status = ?", status).
		Where("id = ? AND status = ?", id, statusPending)
	if codeHash != nil {
		q = q.Set("code_hash = ?", *codeHash).Set("expires_at = ?", expires)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return false
	}
	n, err := res.RowsAffected()
	return err == nil && n == 1
}
