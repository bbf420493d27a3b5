package accounts

import (
	"fmt"

	"cairn.dev/cairn/modules/mail"
)

// texts are the mails, by locale: the subject and the body, each with the
// product's title for %[1]s, the body with the link for %[2]s (a notice
// carries none).
var texts = map[string]map[string][2]string{
	"invitation": {
		"fr": {"Votre accès à %[1]s", "Bonjour,\n\nVous êtes invité·e à utiliser %[1]s. Ouvrez ce lien pour vous connecter (valable 30 minutes, une seule fois) :\n\n%[2]s\n\nPassé ce délai, demandez un nouveau lien depuis la page de connexion.\n"},
		"en": {"Your access to %[1]s", "Hello,\n\nYou are invited to use %[1]s. Open this link to sign in (valid for 30 minutes, once):\n\n%[2]s\n\nAfter that, ask for a new link on the sign-in page.\n"},
	},
	"sign-in": {
		"fr": {"Votre lien de connexion %[1]s", "Bonjour,\n\nVoici votre lien de connexion à %[1]s (valable 30 minutes, une seule fois) :\n\n%[2]s\n\nSi vous n'avez rien demandé, ignorez ce message.\n"},
		"en": {"Your %[1]s sign-in link", "Hello,\n\nHere is your link to sign in to %[1]s (valid for 30 minutes, once):\n\n%[2]s\n\nIf you did not ask for it, ignore this message.\n"},
	},
	"email-change": {
		"fr": {"Confirmez votre nouvelle adresse pour %[1]s", "Bonjour,\n\nPour utiliser cette adresse avec %[1]s, ouvrez ce lien (valable 30 minutes, une seule fois) :\n\n%[2]s\n\nSi vous n'avez rien demandé, ignorez ce message.\n"},
		"en": {"Confirm your new address for %[1]s", "Hello,\n\nTo use this address with %[1]s, open this link (valid for 30 minutes, once):\n\n%[2]s\n\nIf you did not ask for it, ignore this message.\n"},
	},
	"email-taken": {
		"fr": {"Votre adresse et %[1]s", "Bonjour,\n\nQuelqu'un a demandé à utiliser cette adresse pour un autre compte %[1]s. Elle reste celle de votre compte : rien n'a changé.\n\nSi c'était vous, connectez-vous avec cette adresse. Sinon, ignorez ce message.\n"},
		"en": {"Your address and %[1]s", "Hello,\n\nSomeone asked to use this address for another %[1]s account. It stays your account's: nothing has changed.\n\nIf that was you, sign in with this address. Otherwise, ignore this message.\n"},
	},
	"access-request": {
		"fr": {"Confirmez votre demande d'accès à %[1]s", "Bonjour,\n\nPour confirmer votre demande d'accès anticipé à %[1]s, ouvrez ce lien (valable 24 heures) :\n\n%[2]s\n"},
		"en": {"Confirm your request for early access to %[1]s", "Hello,\n\nTo confirm your request for early access to %[1]s, open this link (valid for 24 hours):\n\n%[2]s\n"},
	},
}

// message is a mail of kind in locale (the product's own when the person's
// is not written), naming the product and carrying link.
func (a *Auth) message(kind, locale, to, link string) mail.Message {
	t, ok := texts[kind][locale]
	if !ok {
		t = texts[kind][a.words.Locale]
	}
	return mail.Message{To: to, Subject: fmt.Sprintf(t[0], a.words.Title), Text: fmt.Sprintf(t[1], a.words.Title, link), Link: link}
}
