package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

type refreshToken struct {
	bun.BaseModel `bun:"table:oauth_refresh_tokens"`

	Digest    string     `bun:"digest,pk"`
	ClientID  string     `bun:"client_id"`
	UserID    string     `bun:"user_id"`
	Scope     string     `bun:"scope"`
	Resource  string     `bun:"resource"`
	CreatedAt time.Time  `bun:"created_at"`
	ExpiresAt time.Time  `bun:"expires_at"`
	UsedAt    *time.Time `bun:"used_at"`
}

// token is the token endpoint: a code with its PKCE verifier, or a
// refresh token, for an access token and a new refresh token.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRegistration)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "the body is not a form")
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		s.exchangeCode(w, r)
	case "refresh_token":
		s.refresh(w, r)
	default:
		writeError(w, http.StatusBadRequest, "unsupported_grant_type", "grant_type is authorization_code or refresh_token")
	}
}

func (s *Server) exchangeCode(w http.ResponseWriter, r *http.Request) {
	ctx, f := r.Context(), r.PostForm
	a := new(authorization)
	err := storage.Conn(ctx, s.db).NewSelect().Model(a).Where("code_hash = ?", digest(f.Get("code"))).Scan(ctx)
	if storage.NoRows(err) || f.Get("code") == "" {
		writeError(w, http.StatusBadRequest, "invalid_grant", "the code is unknown")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "the code could not be read")
		return
	}
	switch {
	case a.Status == statusExchanged && a.UserID != nil:
		// A code seen twice was stolen, or the first answer was: whatever
		// it gave is withdrawn (RFC 6749 §4.1.2).
		s.withdraw(ctx, a.ClientID, *a.UserID)
		writeError(w, http.StatusBadRequest, "invalid_grant", "the code was already used; the tokens it gave are revoked")
		return
	case a.Status != statusApproved:
		writeError(w, http.StatusBadRequest, "invalid_grant", "the code is not approved")
		return
	case !s.now().Before(a.ExpiresAt):
		writeError(w, http.StatusBadRequest, "invalid_grant", "the code has expired")
		return
	case f.Get("client_id") != a.ClientID:
		writeError(w, http.StatusBadRequest, "invalid_grant", "the code was issued to another client")
		return
	case f.Get("redirect_uri") != a.RedirectURI:
		writeError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's")
		return
	case f.Get("code_verifier") == "" || subtle.ConstantTimeCompare([]byte(s256(f.Get("code_verifier"))), []byte(a.CodeChallenge)) != 1:
		writeError(w, http.StatusBadRequest, "invalid_grant", "the code_verifier does not match the code_challenge")
		return
	case f.Get("resource") != "" && f.Get("resource") != a.Resource:
		writeError(w, http.StatusBadRequest, "invalid_target", "resource differs from the authorization request's")
		return
	}
	// Spend the code once, whoever races for it.
	res, err := storage.Conn(ctx, s.db).NewUpdate().Model((*authorization)(nil)).Set("status = ?", statusExchanged).
		Where("id = ? AND status = ?", a.ID, statusApproved).Exec(ctx)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "the code could not be spent")
		return
	}
	if n, _ := res.RowsAffected(); n != 1 {
		writeError(w, http.StatusBadRequest, "invalid_grant", "the code was already used")
		return
	}
	s.issue(ctx, w, r.Header.Get(registry.HeaderClientAddress), a.ClientID, *a.UserID, parseScopes(a.Scope), a.Resource)
}

func (s *Server) refresh(w http.ResponseWriter, r *http.Request) {
	ctx, f := r.Context(), r.PostForm
	rt := new(refreshToken)
	err := storage.Conn(ctx, s.db).NewSelect().Model(rt).Where("digest = ?", digest(f.Get("refresh_token"))).Scan(ctx)
	if storage.NoRows(err) || f.Get("refresh_token") == "" {
		writeError(w, http.StatusBadRequest, "invalid_grant", "the refresh token is unknown")
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "the refresh token could not be read")
		return
	}
	granted := parseScopes(rt.Scope)
	scopes := parseScopes(f.Get("scope"))
	if len(scopes) == 0 {
		scopes = granted
	}
	switch {
	case rt.UsedAt != nil:
		// A spent refresh token presented again: someone holds a copy, so
		// the grant ends (OAuth 2.1 §4.3.1, refresh token rotation).
		s.withdraw(ctx, rt.ClientID, rt.UserID)
		writeError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was already used or revoked")
		return
	case !s.now().Before(rt.ExpiresAt):
		writeError(w, http.StatusBadRequest, "invalid_grant", "the refresh token has expired")
		return
	case f.Get("client_id") != rt.ClientID:
		writeError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was issued to another client")
		return
	case f.Get("resource") != "" && f.Get("resource") != rt.Resource:
		writeError(w, http.StatusBadRequest, "invalid_target", "resource differs from the grant's")
		return
	}
	for _, sc := range scopes {
		if !slices.Contains(granted, sc) {
			writeError(w, http.StatusBadRequest, "invalid_scope", "a refresh cannot widen the grant: "+string(sc)+" was not granted")
			return
		}
	}
	if !s.spendRefresh(ctx, rt.Digest) {
		writeError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was already used or revoked")
		return
	}
	s.issue(ctx, w, r.Header.Get(registry.HeaderClientAddress), rt.ClientID, rt.UserID, scopes, rt.Resource)
}

func (s *Server) spendRefresh(ctx context.Context, dig string) bool {
	res, err := storage.Conn(ctx, s.db).NewUpdate().Model((*refreshToken)(nil)).Set("used_at = ?", s.now()).
		Where("digest = ? AND used_at IS NULL", dig).Exec(ctx)
	if err != nil {
		return false
	}
	n, err := res.RowsAffected()
	return err == nil && n == 1
}

// issue mints, for the client as from sees it (its metadata document
// fetched again once stale), a short-lived access token bound to resource
// in the account store (both faces accept it with its scopes; /mcp only if it is bound to
// /mcp or to nothing) and a refresh token.
func (s *Server) issue(ctx context.Context, w http.ResponseWriter, from, clientID, userID string, scopes []registry.Scope, resource string) {
	c, err := s.client(ctx, clientID, from)
	var refused *ClientRefusal
	switch {
	case errors.As(err, &refused):
		writeError(w, http.StatusBadRequest, "invalid_client", refused.Description)
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, "server_error", "the client could not be read")
		return
	case c == nil:
		writeError(w, http.StatusBadRequest, "invalid_client", "the client is no longer registered")
		return
	}
	access, err := s.store.CreateBoundToken(ctx, userID, tokenName(c), scopes, AccessTokenTTL, resource)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "the token could not be issued")
		return
	}
	refresh := randomToken()
	now := s.now()
	rt := &refreshToken{Digest: digest(refresh), ClientID: clientID, UserID: userID, Scope: registry.JoinScopes(scopes), Resource: resource, CreatedAt: now, ExpiresAt: now.Add(RefreshTokenTTL)}
	if _, err := storage.Conn(ctx, s.db).NewInsert().Model(rt).Exec(ctx); err != nil {
		_ = s.store.RevokeSecret(ctx, access)
		writeError(w, http.StatusInternalServerError, "server_error", "the token could not be issued")
		return
	}
	_, _ = storage.Conn(ctx, s.db).NewUpdate().Model((*client)(nil)).Set("last_used_at = ?", now).Where("id = ?", clientID).Exec(ctx)
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "Bearer", "expires_in": int(AccessTokenTTL / time.Second),
		"refresh_token": refresh, "scope": registry.JoinScopes(scopes),
	})
}

// revoke is RFC 7009: the token (access or refresh) stops working; an
// unknown one is no error, so that the answer tells nothing.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRegistration)
	if err := r.ParseForm(); err != nil || r.PostForm.Get("token") == "" {
		writeError(w, http.StatusBadRequest, "invalid_request", "give the token to revoke")
		return
	}
	ctx, tok := r.Context(), r.PostForm.Get("token")
	s.spendRefresh(ctx, digest(tok))
	if err := s.store.RevokeSecret(ctx, tok); err != nil {
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "try again")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

// tokenName names a client's access tokens in the person's token list; the
// client id keeps two clients of the same name apart.
func tokenName(c *client) string { return tokenNamePrefix + c.Name + " (" + c.ID + ")" }

// withdraw ends a client's grant for a person: its refresh tokens are
// spent and its access tokens revoked.
func (s *Server) withdraw(ctx context.Context, clientID, userID string) {
	_, _ = storage.Conn(ctx, s.db).NewUpdate().Model((*refreshToken)(nil)).Set("used_at = ?", s.now()).
		Where("client_id = ? AND user_id = ? AND used_at IS NULL", clientID, userID).Exec(ctx)
	if c, err := s.storedClient(ctx, clientID); err == nil && c != nil {
		_ = s.store.RevokeTokens(ctx, userID, tokenName(c))
	}
}
