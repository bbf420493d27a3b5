package accounts

import (
	"errors"
	"slices"
	"strings"
)

// Words are what the door says of the product it serves, chosen by the
// product: its name on the sign-in page and in the mails, the name of the
// account's export file, the language of a person it knows nothing of
// yet, and the notification categories a person turns on or off. Nothing
// of any one product is written in this module.
type Words struct {
	// Title names the product to people: "Sign in to Notes", "Your
	// access to Notes". Required.
	Title string
	// ExportName starts the name of the account's export file,
	// {ExportName}-{YYYY-MM-DD}.json; empty: the title in lower case,
	// each run of other characters than letters and digits a hyphen,
	// then "-export".
	ExportName string
	// Locale is the language (one of Locales) of an invitation that names
	// none, of an early-access mail (its address has no account yet) and
	// of an anonymised account; empty: en.
	Locale string
	// Notifications are the categories of notifications a person turns
	// on or off (NotificationsOf); the zero value has none, and the
	// notification preference operations are then not declared.
	Notifications Notifications
}

// Locales are the languages the pages and mails are written in.
var Locales = []string{"fr", "en"}

// complete fills the defaults of w and checks it.
func (w Words) complete() (Words, error) {
	w.Title = strings.TrimSpace(w.Title)
	if w.Title == "" {
		return w, errors.New("accounts: the product's title is required (Words.Title): the sign-in page and the mails name it")
	}
	if w.Locale == "" {
		w.Locale = "en"
	}
	if !slices.Contains(Locales, w.Locale) {
		return w, errors.New("accounts: Words.Locale must be one of " + strings.Join(Locales, ", "))
	}
	if w.ExportName == "" {
		w.ExportName = slug(w.Title) + "-export"
	}
	return w, w.Notifications.err
}

// slug lowers s and turns each run of other characters than ASCII letters
// and digits into one hyphen, trimmed at both ends.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "account"
	}
	return b.String()
}

// supported reports whether locale is one of Locales.
func supported(locale string) bool { return slices.Contains(Locales, locale) }
