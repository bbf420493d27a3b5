package accounts

import (
	"net/http"
	"time"

	"cairn.dev/cairn/registry"
)

// ScopeAccount permits acting on one's own account.
const ScopeAccount registry.Scope = "account"

// RequestLinkLimit is the limit of asking for a sign-in link, wherever it
// is asked (POST /auth/request-link, a consent page): silent, so that it
// tells nothing either.
var RequestLinkLimit = requestLinkLimit

// The limits auth.md states.
var (
	requestLinkLimit = registry.PerArgument("email", 3, 15*time.Minute).And(registry.PerIP(10, 15*time.Minute)).Silently()
	emailChangeLimit = registry.PerUser(3, 15*time.Minute).And(registry.PerIP(10, 15*time.Minute))
	accessLimit      = registry.PerIP(3, time.Hour)
)

// op fills the guards every operation of this module shares: nothing here
// reads a record, merges, locks, asks or replays.
func op[I, O any](o registry.Op[I, O]) registry.Op[I, O] {
	if !o.Validate.Declared() {
		o.Validate = registry.NotValidated
	}
	o.Lock = registry.NoLock
	o.Precondition = registry.NoPrecondition
	if !o.Confirm.Declared() {
		o.Confirm = registry.NoConfirm
	}
	o.Idempotency = registry.NotACreation
	if o.Owner.Var == "" {
		o.Owner = registry.CallerOwned
	}
	return o
}

// Declare adds the account's scope and operations. None is an MCP tool:
// each has its motive (ADR-080 §2).
func (a *Auth) Declare(reg *registry.Registry) {
	reg.DeclareScope(ScopeAccount, registry.WriteScope, "Read, change, export and delete your own account; sign out.")
	mailbox := registry.NotATool(registry.MotiveBrowserAndMailbox)
	a.declarePage(reg)

	registry.Add(reg, op(normalised(registry.Op[EmailInput, Accepted]{
		ID: "auth.request_link", Summary: "Ask for a sign-in link by email",
		HTTP: registry.Post("/auth/request-link", http.StatusOK), Tool: mailbox,
		Scope: registry.Public, RateLimit: requestLinkLimit, Hints: registry.Hints{OpenWorld: true},
		Handle: a.requestLink,
	}, cleanEmail, checkEmail)))
	registry.Add(reg, op(normalised(registry.Op[VerifyInput, Tokens]{
		ID: "auth.verify", Summary: "Sign in with the token of a mailed link",
		HTTP: registry.Post("/auth/verify", http.StatusOK), Tool: mailbox,
		Scope: registry.Public, RateLimit: registry.NoRateLimit,
		Handle: a.verify,
	}, cleanVerify, checkVerify)))
	registry.Add(reg, op(normalised(registry.Op[RefreshInput, Tokens]{
		ID: "auth.refresh", Summary: "Rotate a refresh token for a new session token",
		HTTP: registry.Post("/auth/refresh", http.StatusOK), Tool: mailbox,
		Scope: registry.Public, RateLimit: registry.NoRateLimit,
		Handle: a.refresh,
	}, cleanRefresh, checkRefresh)))
	registry.Add(reg, op(registry.Op[NoInput, NoOutput]{
		ID: "auth.logout", Summary: "Sign out: every refresh token of the caller is deleted",
		HTTP: registry.Post("/auth/logout", http.StatusNoContent), Tool: mailbox,
		Scope: ScopeAccount, RateLimit: registry.NoRateLimit, Hints: registry.Hints{Destructive: true, Idempotent: true},
		Confirm: registry.NoConfirmBecause("signing out loses nothing stored: signing in again gives a new session"),
		Handle:  a.logout,
	}))
	registry.Add(reg, op(registry.Op[NoInput, Session]{
		ID: "auth.session", Summary: "Whether the refresh_token cookie holds a session (never rotates)",
		HTTP: registry.Get("/auth/session"), Tool: mailbox,
		Scope: registry.Public, RateLimit: registry.NoRateLimit, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: a.session,
	}))

	// The profile is what a web front shows of the person (address,
	// language): nothing an agent doing the product's work needs, and an
	// address it has no reason to read.
	registry.Add(reg, op(registry.Op[NoInput, Me]{
		ID: "account.me", Summary: "The caller's profile",
		HTTP: registry.Get("/users/me"), Tool: registry.NotATool(registry.MotiveUIVocabulary),
		Scope: ScopeAccount, RateLimit: registry.NoRateLimit, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: a.me,
	}))
	registry.Add(reg, op(normalised(registry.Op[PatchMeInput, Me]{
		ID: "account.update", Summary: "Change the caller's language",
		HTTP: registry.Patch("/users/me", http.StatusOK), Tool: registry.NotATool(registry.MotiveUIVocabulary),
		Scope: ScopeAccount, RateLimit: registry.NoRateLimit, Hints: registry.Hints{Idempotent: true},
		Handle: a.updateMe,
	}, cleanPatchMe, checkPatchMe)))
	registry.Add(reg, op(registry.Op[NoInput, AccountDeleted]{
		ID: "account.delete", Summary: "Delete the account: everything it holds goes, the person is anonymised; irreversible",
		HTTP: registry.Delete("/users/me"), Tool: registry.NotATool(registry.MotiveIrreversibleIdentity),
		Scope: ScopeAccount, RateLimit: registry.NoRateLimit, Hints: registry.Hints{Destructive: true},
		Confirm: registry.ConfirmWith(a.deleteImpact),
		Handle:  a.deleteMe,
	}))
	registry.Add(reg, op(registry.Op[NoInput, Export]{
		ID: "account.export", Summary: "Everything the account holds, as a JSON file",
		HTTP: registry.Get("/users/me/export"), Tool: registry.NotATool(registry.MotiveBinaryPayload),
		Scope: ScopeAccount, RateLimit: registry.NoRateLimit, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: a.export,
	}))
	if a.words.Notifications.declare != nil {
		a.words.Notifications.declare(a, reg)
	}
	registry.Add(reg, op(normalised(registry.Op[DeviceInput, Device]{
		ID: "account.register_device", Summary: "Register a device for push notifications",
		HTTP: registry.Post("/users/me/device-tokens", http.StatusCreated), Tool: registry.NotATool(registry.MotiveLiveDevice),
		Scope: ScopeAccount, RateLimit: registry.NoRateLimit, Hints: registry.Hints{Idempotent: true},
		Refusals: []*registry.Error{ErrDeviceTaken},
		Handle:   a.registerDevice,
	}, cleanDevice, checkDevice)))
	registry.Add(reg, op(registry.Op[NoInput, NoOutput]{
		ID: "account.delete_device", Summary: "Forget one of the caller's devices",
		HTTP: registry.Delete("/users/me/device-tokens/{token}"), Tool: registry.NotATool(registry.MotiveLiveDevice),
		Scope: ScopeAccount, Owner: registry.ByURIVariable("token", a.ownsDevice), RateLimit: registry.NoRateLimit,
		Hints:   registry.Hints{Destructive: true, Idempotent: true},
		Confirm: registry.NoConfirmBecause("a device forgotten registers its token again when its app next starts"),
		Handle:  a.deleteDevice,
	}))
	registry.Add(reg, op(normalised(registry.Op[EmailChangeInput, Accepted]{
		ID: "account.email_change", Summary: "Ask to change the address: a link goes to the new one",
		HTTP: registry.Post("/users/me/email-change", http.StatusOK), Tool: mailbox,
		Scope: ScopeAccount, RateLimit: emailChangeLimit, Hints: registry.Hints{OpenWorld: true},
		Handle: a.emailChange,
	}, cleanEmailChange, checkEmailChange)))
	registry.Add(reg, op(normalised(registry.Op[TokenInput, EmailChanged]{
		ID: "account.email_change_verify", Summary: "Confirm an address change with the mailed token",
		HTTP: registry.Post("/users/me/email-change/verify", http.StatusOK), Tool: mailbox,
		Scope: ScopeAccount, RateLimit: registry.NoRateLimit,
		Handle: a.emailChangeVerify,
	}, cleanToken, checkToken)))

	registry.Add(reg, op(normalised(registry.Op[EmailInput, Accepted]{
		ID: "access.request", Summary: "Ask for early access",
		HTTP: registry.Post("/access-requests", http.StatusOK), Tool: mailbox,
		Scope: registry.Public, RateLimit: accessLimit, Hints: registry.Hints{OpenWorld: true},
		Handle: a.requestAccess,
	}, cleanEmail, checkEmail)))
	registry.Add(reg, op(normalised(registry.Op[AccessVerifyInput, Accepted]{
		ID: "access.verify", Summary: "Confirm an early-access request with its signed link",
		HTTP: registry.Post("/access-requests/verify", http.StatusOK), Tool: mailbox,
		Scope: registry.Public, RateLimit: registry.NoRateLimit, Hints: registry.Hints{Idempotent: true},
		Handle: a.verifyAccess,
	}, cleanAccessVerify, checkAccessVerify)))
}
