package planner_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/conformance"
	"cairn.dev/cairn/modules/mail"
	"cairn.dev/cairn/planner"
)

// outboxLink is the token after marker in the newest link mailed to addr,
// read from the outbox (the parity application has no SMTP server).
func outboxLink(t testing.TB, a *apptest.App, addr, marker string) string {
	t.Helper()
	ms, err := mail.NewOutbox(planner.OutboxDir(a.Config), nil).List()
	require.NoError(t, err)
	for i := len(ms) - 1; i >= 0; i-- {
		if l := ms[i].Link; ms[i].To == addr && strings.Contains(l, marker) {
			return l[strings.Index(l, marker)+len(marker):]
		}
	}
	t.Fatalf("no mail to %s with a link to %s in the outbox", addr, marker)
	return ""
}

var fixtureAddresses atomic.Uint32

// fixtureAddress is a client address of its own for a fixture's set-up
// call, so that per-address limits never count it with a scenario's calls.
func fixtureAddress() string {
	n := fixtureAddresses.Add(1)
	return fmt.Sprintf("203.0.%d.%d", n>>8&0xff, n&0xff)
}

// magicToken asks for a sign-in link for u and returns its token.
func magicToken(t testing.TB, a *apptest.App, u conformance.User) string {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": u.Email},
		"X-Forwarded-For", fixtureAddress())
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	return outboxLink(t, a, u.Email, "/auth/verify/")
}

// refreshToken signs u in through the outbox and returns the refresh token.
func refreshToken(t testing.TB, a *apptest.App, u conformance.User) string {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": magicToken(t, a, u)})
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	return res.JSON(t)["refresh_token"].(string)
}

func fixed(r apptest.Request) func(testing.TB, *apptest.App, conformance.User) apptest.Request {
	return func(testing.TB, *apptest.App, conformance.User) apptest.Request { return r }
}

// withArgs is an Invalid fixture: the valid call with args replacing its own.
func withArgs(args map[string]any) func(testing.TB, *apptest.App, conformance.User, apptest.Request) apptest.Request {
	return func(_ testing.TB, _ *apptest.App, _ conformance.User, r apptest.Request) apptest.Request {
		out := r
		out.Args = map[string]any{}
		for k, v := range r.Args {
			out.Args[k] = v
		}
		for k, v := range args {
			out.Args[k] = v
		}
		return out
	}
}

func newAddress() string { return "new-" + uuid.NewString() + "@example.com" }

// accountFixtures cover the accounts module's operations; they join the
// planner's fixtures.
var accountFixtures = conformance.Fixtures{
	"auth.request_link": {Valid: func(_ testing.TB, _ *apptest.App, u conformance.User) apptest.Request {
		return apptest.Request{Args: map[string]any{"email": u.Email}}
	}, Invalid: withArgs(map[string]any{"email": "not-an-address"})},
	"auth.verify": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		return apptest.Request{Args: map[string]any{"token": magicToken(t, a, u)}}
	}, Invalid: withArgs(map[string]any{"token": " "})},
	"auth.verify_page": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		return apptest.Request{Vars: map[string]string{"token": magicToken(t, a, u)}}
	}},
	"auth.refresh": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		return apptest.Request{Args: map[string]any{"refresh_token": refreshToken(t, a, u)}}
	}, Invalid: withArgs(map[string]any{"refresh_token": ""})},
	"auth.logout":  {Valid: fixed(apptest.Request{})},
	"auth.session": {Valid: fixed(apptest.Request{})},
	"account.me":   {Valid: fixed(apptest.Request{})},
	"account.update": {Valid: fixed(apptest.Request{Args: map[string]any{"locale": "en"}}),
		Invalid: withArgs(map[string]any{"locale": "de"})},
	"account.delete": {Valid: fixed(apptest.Request{}),
		// Deleting anonymises the person: no live user holds the address.
		Written: func(t testing.TB, a *apptest.App, u conformance.User, _ apptest.Request) bool {
			n, err := a.DB.NewSelect().Table("users").Where("email = ? AND deleted_at IS NULL", u.Email).Count(context.Background())
			require.NoError(t, err)
			return n == 0
		}},
	"account.export":                   {Valid: fixed(apptest.Request{})},
	"account.notification_preferences": {Valid: fixed(apptest.Request{})},
	"account.set_notification_preference": {Valid: fixed(apptest.Request{
		Vars: map[string]string{"category": "zoneOpening"}, Args: map[string]any{"enabled": true}}),
		Invalid: func(_ testing.TB, _ *apptest.App, _ conformance.User, r apptest.Request) apptest.Request {
			r.Args = map[string]any{} // enabled is required: never a silent opt-out
			return r
		}},
	"account.register_device": {Valid: func(testing.TB, *apptest.App, conformance.User) apptest.Request {
		return apptest.Request{Args: map[string]any{"token": "device-" + uuid.NewString(), "platform": "ios"}}
	}, Invalid: withArgs(map[string]any{"platform": "windows"})},
	"account.delete_device": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		tok := "device-" + uuid.NewString()
		res := a.Do(t, http.MethodPost, "/users/me/device-tokens", u.Token, map[string]any{"token": tok, "platform": "android"})
		require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
		return apptest.Request{Vars: map[string]string{"token": tok}}
	}},
	"account.email_change": {Valid: func(testing.TB, *apptest.App, conformance.User) apptest.Request {
		return apptest.Request{Args: map[string]any{"newEmail": newAddress()}}
	}, Invalid: withArgs(map[string]any{"newEmail": "alice@"})},
	"account.email_change_verify": {Valid: func(t testing.TB, a *apptest.App, u conformance.User) apptest.Request {
		to := newAddress()
		res := a.Do(t, http.MethodPost, "/users/me/email-change", u.Token, map[string]any{"newEmail": to},
			"X-Forwarded-For", fixtureAddress())
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		return apptest.Request{Args: map[string]any{"token": outboxLink(t, a, to, "/account/email-change/")}}
	}, Invalid: withArgs(map[string]any{"token": ""})},
	"access.request": {Valid: func(testing.TB, *apptest.App, conformance.User) apptest.Request {
		return apptest.Request{Args: map[string]any{"email": "early-" + uuid.NewString() + "@example.com"}}
	}, Invalid: withArgs(map[string]any{"email": ""})},
	"access.verify": {Valid: fixed(apptest.Request{Args: map[string]any{
		"email": "early@example.com", "expires": "0", "signature": "00"}}),
		Invalid: withArgs(map[string]any{"expires": "soon"})},
}

func init() {
	for id, f := range accountFixtures {
		fixtures[id] = f
	}
}
