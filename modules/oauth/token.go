package oauth

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/accounts"
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
	Family    string     `bun:"family"` // the grant's chain of refresh tokens (accounts' family rule)
	Sealed    string     `bun:"sealed"`
	// ReplacedBy is the successor's digest once rotated.
	ReplacedBy *string `bun:"replaced_by"`
}

// refreshTable holds the authorization server's refresh tokens.
const refreshTable = "oauth_refresh_tokens"

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
	c, ok := s.liveClient(ctx, w, r.Header.Get(registry.HeaderClientAddress), rt.ClientID)
	if !ok {
		return
	}
	// The family rule (accounts): rotation, a grace for parallel refreshes,
	// then reuse ends the family, access tokens included.
	rot, err := s.auth.Rotate(ctx, refreshTable, f.Get("refresh_token"), func(ctx context.Context, row *accounts.RefreshRow, successor, sealed string) error {
		now := s.now()
		_, err := storage.Conn(ctx, s.db).NewInsert().Model(&refreshToken{Digest: accounts.Digest(successor), ClientID: rt.ClientID, UserID: rt.UserID,
			Scope: registry.JoinScopes(scopes), Resource: rt.Resource, CreatedAt: now, ExpiresAt: now.Add(RefreshTokenTTL),
			Family: row.Family, Sealed: sealed}).Exec(ctx)
		return err
	})
	switch {
	case errors.Is(err, accounts.ErrRefreshReused):
		writeError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was already used; every token of its grant is revoked")
		return
	case errors.Is(err, accounts.ErrRefreshRefused):
		writeError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was already used or revoked")
		return
	case err != nil:
		writeError(w, http.StatusInternalServerError, "server_error", "the refresh token could not be rotated")
		return
	}
	next := new(refreshToken)
	if err := storage.Conn(ctx, s.db).NewSelect().Model(next).Where("digest = ?", accounts.Digest(rot.Successor)).Scan(ctx); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_grant", "the refresh token was already used or revoked")
		return
	}
	s.answer(ctx, w, c, next.UserID, parseScopes(next.Scope), next.Resource, next.Family, rot.Successor)
}

// liveClient reads the client as from sees it (its metadata document
// fetched again once stale); false when it answered a refusal.
func (s *Server) liveClient(ctx context.Context, w http.ResponseWriter, from, clientID string) (*client, bool) {
	c, err := s.client(ctx, clientID, from)
	var refused *ClientRefusal
	switch {
	case errors.As(err, &refused):
		writeError(w, http.StatusBadRequest, "invalid_client", refused.Description)
		return nil, false
	case err != nil:
		writeError(w, http.StatusInternalServerError, "server_error", "the client could not be read")
		return nil, false
	case c == nil:
		writeError(w, http.StatusBadRequest, "invalid_client", "the client is no longer registered")
		return nil, false
	}
	return c, true
}

// issue starts a family for a code just spent: a short-lived access token
// bound to resource in the account store (both faces accept it with its
// scopes; /mcp only if it is bound to /mcp or to nothing) and a first
// refresh token.
func (s *Server) issue(ctx context.Context, w http.ResponseWriter, from, clientID, userID string, scopes []registry.Scope, resource string) {
	c, ok := s.liveClient(ctx, w, from, clientID)
	if !ok {
		return
	}
	family := accounts.NewFamily()
	refresh, sealed := s.auth.NewRefreshToken()
	now := s.now()
	rt := &refreshToken{Digest: accounts.Digest(refresh), ClientID: clientID, UserID: userID, Scope: registry.JoinScopes(scopes), Resource: resource,
		CreatedAt: now, ExpiresAt: now.Add(RefreshTokenTTL), Family: family, Sealed: sealed}
	if _, err := storage.Conn(ctx, s.db).NewInsert().Model(rt).Exec(ctx); err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "the token could not be issued")
		return
	}
	s.answer(ctx, w, c, userID, scopes, resource, family, refresh)
}

// answer mints the access token of a family and answers it with refresh.
func (s *Server) answer(ctx context.Context, w http.ResponseWriter, c *client, userID string, scopes []registry.Scope, resource, family, refresh string) {
	access, err := s.store.CreateFamilyToken(ctx, userID, tokenName(c), scopes, AccessTokenTTL, resource, family)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "the token could not be issued")
		return
	}
	_, _ = storage.Conn(ctx, s.db).NewUpdate().Model((*client)(nil)).Set("last_used_at = ?", s.now()).Where("id = ?", c.ID).Exec(ctx)
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "Bearer", "expires_in": int(AccessTokenTTL / time.Second),
		"refresh_token": refresh, "scope": registry.JoinScopes(scopes),
	})
}

// revoke is RFC 7009 for public clients: the client names itself with
// client_id, and only its own tokens are revoked. A refresh token ends its
// family (every refresh and access token of that chain); an access token
// stops working. An unknown token is no error, so that the answer tells
// nothing; a token issued to another client is refused and stays valid.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxRegistration)
	if err := r.ParseForm(); err != nil || r.PostForm.Get("token") == "" {
		writeError(w, http.StatusBadRequest, "invalid_request", "give the token to revoke")
		return
	}
	ctx, tok, clientID := r.Context(), r.PostForm.Get("token"), r.PostForm.Get("client_id")
	if clientID == "" {
		writeError(w, http.StatusUnauthorized, "invalid_client", "give client_id: a client revokes only its own tokens")
		return
	}
	family, owner, isRefresh, err := s.familyOf(ctx, tok)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "try again")
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case owner == "":
		w.WriteHeader(http.StatusOK) // unknown here: nothing to do
		return
	case owner != clientID:
		writeError(w, http.StatusBadRequest, "unauthorized_client", "the token was issued to another client; nothing was revoked")
		return
	}
	if isRefresh {
		err = s.auth.EndFamily(ctx, refreshTable, family)
	} else {
		err = s.store.RevokeSecret(ctx, tok)
	}
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "try again")
		return
	}
	w.WriteHeader(http.StatusOK)
}

// familyOf finds the family and the client of a refresh token or of an
// access token this server issued; "" owner when it issued no such token.
func (s *Server) familyOf(ctx context.Context, tok string) (family, clientID string, isRefresh bool, err error) {
	rt := new(refreshToken)
	err = storage.Conn(ctx, s.db).NewSelect().Model(rt).Where("digest = ?", accounts.Digest(tok)).Scan(ctx)
	if err == nil {
		return rt.Family, rt.ClientID, true, nil
	}
	if !storage.NoRows(err) {
		return "", "", false, err
	}
	family, _, err = s.store.FamilyOf(ctx, tok)
	if err != nil || family == "" {
		return "", "", false, err
	}
	err = storage.Conn(ctx, s.db).NewSelect().Model((*refreshToken)(nil)).Column("client_id").Where("family = ?", family).Limit(1).Scan(ctx, &clientID)
	if storage.NoRows(err) {
		// The family's refresh tokens are gone (ended or expired): its
		// access tokens were revoked with them, or expire within the hour.
		return family, "", false, nil
	}
	return family, clientID, false, err
}

// tokenName names a client's access tokens in the person's token list; the
// client id keeps two clients of the same name apart.
func tokenName(c *client) string { return tokenNamePrefix + c.Name + " (" + c.ID + ")" }

// withdraw ends a client's grant for a person: every family of its
// refresh tokens ends, and its access tokens are revoked.
func (s *Server) withdraw(ctx context.Context, clientID, userID string) {
	var families []string
	_ = storage.Conn(ctx, s.db).NewSelect().Model((*refreshToken)(nil)).Distinct().Column("family").
		Where("client_id = ? AND user_id = ?", clientID, userID).Scan(ctx, &families)
	for _, f := range families {
		_ = s.auth.EndFamily(ctx, refreshTable, f)
	}
	if c, err := s.storedClient(ctx, clientID); err == nil && c != nil {
		_ = s.store.RevokeTokens(ctx, userID, tokenName(c))
	}
}
