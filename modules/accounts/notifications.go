package accounts

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// Notifications are the notification preferences a product offers: its
// categories, each on or off until the person says otherwise. Build them
// with NotificationsOf; the zero value offers none.
type Notifications struct {
	names   []string        // sorted
	on      map[string]bool // each category's default
	declare func(a *Auth, reg *registry.Registry)
	err     error
}

// NotificationsOf offers the categories of P, a struct of bool fields,
// each a category under its JSON name, on by default where defaults has
// it true. P is what the preferences answer, so the product's API
// documents each category by name:
//
//	type Preferences struct {
//		WeeklyDigest bool `json:"weeklyDigest"`
//		Mentions     bool `json:"mentions"`
//	}
//	accounts.NotificationsOf(Preferences{Mentions: true})
func NotificationsOf[P any](defaults P) Notifications {
	n := Notifications{on: map[string]bool{}}
	t, v := reflect.TypeFor[P](), reflect.ValueOf(defaults)
	if t.Kind() != reflect.Struct {
		n.err = fmt.Errorf("accounts: notification preferences must be a struct of bool fields, not %s", t)
		return n
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "" || name == "-" || f.Type.Kind() != reflect.Bool || strings.ContainsAny(name, "/?#% ") {
			n.err = fmt.Errorf("accounts: %s.%s: a notification category is an exported bool field with a JSON name (no space, / ? # or %%)", t.Name(), f.Name)
			return n
		}
		n.names = append(n.names, name)
		n.on[name] = v.Field(i).Bool()
	}
	if len(n.names) == 0 {
		n.err = fmt.Errorf("accounts: %s names no notification category", t)
		return n
	}
	slices.Sort(n.names)
	n.declare = declarePreferences[P]
	return n
}

// declarePreferences adds the notification preferences, answered as P.
func declarePreferences[P any](a *Auth, reg *registry.Registry) {
	registry.Add(reg, op(registry.Op[NoInput, P]{
		ID: "account.notification_preferences", Summary: "The caller's notification preferences, by category",
		HTTP: registry.Get("/users/me/notification-preferences"), Tool: registry.NotATool(registry.MotiveUIVocabulary),
		Scope: ScopeAccount, RateLimit: registry.NoRateLimit, Hints: registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: func(ctx context.Context, c *registry.Call, _ *NoInput) (P, error) {
			return answer[P](a.preferences(ctx, c.UserID()))
		},
	}))
	registry.Add(reg, op(normalised(registry.Op[PreferenceInput, P]{
		ID: "account.set_notification_preference", Summary: "Turn one notification category on or off",
		HTTP:  registry.Route{Method: http.MethodPut, Path: "/users/me/notification-preferences/{category}", Status: http.StatusOK},
		Tool:  registry.NotATool(registry.MotiveUIVocabulary),
		Scope: ScopeAccount, Owner: registry.OneOf("category", a.words.Notifications.names...), RateLimit: registry.NoRateLimit,
		Hints: registry.Hints{Idempotent: true},
		Handle: func(ctx context.Context, c *registry.Call, in *PreferenceInput) (P, error) {
			return answer[P](a.setPreference(ctx, c, in))
		},
	}, cleanPreference, checkPreference)))
}

// answer is the effective preferences as the product's P.
func answer[P any](eff map[string]bool, err error) (P, error) {
	var p P
	if err != nil {
		return p, err
	}
	raw, err := json.Marshal(eff)
	if err != nil {
		return p, err
	}
	return p, json.Unmarshal(raw, &p)
}

// preferences are the user's effective preferences: each category's
// default, unless the person set it.
func (a *Auth) preferences(ctx context.Context, userID string) (map[string]bool, error) {
	eff := map[string]bool{}
	for name, on := range a.words.Notifications.on {
		eff[name] = on
	}
	var rows []struct {
		Category string `bun:"category"`
		Enabled  bool   `bun:"enabled"`
	}
	if err := storage.Conn(ctx, a.store.db).NewSelect().Table("notification_preferences").Column("category", "enabled").
		Where("user_id = ?", userID).Scan(ctx, &rows); err != nil && !storage.NoRows(err) {
		return nil, err
	}
	for _, r := range rows {
		if _, ok := eff[r.Category]; ok { // a category the product no longer offers is not shown
			eff[r.Category] = r.Enabled
		}
	}
	return eff, nil
}

// PreferenceInput turns one category on or off; enabled is required, so a
// body that forgets it is never a silent opt-out.
type PreferenceInput struct {
	Enabled *bool `json:"enabled" doc:"Whether the category is on. Required."`
}

func (a *Auth) setPreference(ctx context.Context, c *registry.Call, in *PreferenceInput) (map[string]bool, error) {
	cat := c.Var("category")
	if _, ok := a.words.Notifications.on[cat]; !ok {
		return nil, registry.Fail(registry.KindNotFound, "no such notification category; the categories are "+strings.Join(a.words.Notifications.names, ", "))
	}
	if in.Enabled == nil {
		return nil, registry.Invalid("enabled is required", registry.Violation{Field: "enabled", Reason: "is required (true or false)"})
	}
	db := storage.Conn(ctx, a.store.db)
	if _, err := db.NewRaw(`INSERT INTO notification_preferences (user_id, category, enabled) VALUES (?, ?, ?)
		ON CONFLICT (user_id, category) DO UPDATE SET enabled = EXCLUDED.enabled`, c.UserID(), cat, *in.Enabled).Exec(ctx); err != nil {
		return nil, err
	}
	return a.preferences(ctx, c.UserID())
}
