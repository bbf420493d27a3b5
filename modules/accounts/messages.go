package accounts

import (
	"fmt"

	"cairn.dev/cairn/modules/mail"
)

// texts are the mails, by locale.
var texts = map[string]map[string][2]string{
	"invitation": {
		"fr": {"Votre accès à Cairn", "Bonjour,\n\nVous êtes invité·e à utiliser Cairn. Ouvrez ce lien pour vous connecter (valable 30 minutes, une seule fois) :\n\n%s\n\nPassé ce délai, demandez un nouveau lien depuis la page de connexion.\n"},
		"en": {"Your access to Cairn", "Hello,\n\nYou are invited to use Cairn. Open this link to sign in (valid for 30 minutes, once):\n\n%s\n\nAfter that, ask for a new link on the sign-in page.\n"},
	},
	"sign-in": {
		"fr": {"Votre lien de connexion Cairn", "Bonjour,\n\nVoici votre lien de connexion (valable 30 minutes, une seule fois) :\n\n%s\n\nSi vous n'avez rien demandé, ignorez ce message.\n"},
		"en": {"Your Cairn sign-in link", "Hello,\n\nHere is your sign-in link (valid for 30 minutes, once):\n\n%s\n\nIf you did not ask for it, ignore this message.\n"},
	},
	"email-change": {
		"fr": {"Confirmez votre nouvelle adresse", "Bonjour,\n\nPour utiliser cette adresse avec Cairn, ouvrez ce lien (valable 30 minutes, une seule fois) :\n\n%s\n\nSi vous n'avez rien demandé, ignorez ce message.\n"},
		"en": {"Confirm your new address", "Hello,\n\nTo use this address with Cairn, open this link (valid for 30 minutes, once):\n\n%s\n\nIf you did not ask for it, ignore this message.\n"},
	},
	"access-request": {
		"fr": {"Confirmez votre demande d'accès à Cairn", "Bonjour,\n\nPour confirmer votre demande d'accès anticipé, ouvrez ce lien (valable 24 heures) :\n\n%s\n"},
		"en": {"Confirm your request for early access to Cairn", "Hello,\n\nTo confirm your request for early access, open this link (valid for 24 hours):\n\n%s\n"},
	},
}

func message(kind, locale, to, link string) mail.Message {
	t, ok := texts[kind][locale]
	if !ok {
		t = texts[kind]["fr"]
	}
	return mail.Message{To: to, Subject: t[0], Text: fmt.Sprintf(t[1], link), Link: link}
}

func invitation(u *User, link string) mail.Message {
	return message("invitation", u.Locale, u.Email, link)
}
