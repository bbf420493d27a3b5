package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/door"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/mail"
	"cairn.dev/cairn/planner"
)

// auth opens the human door over the configured database and mail.
func auth(ctx context.Context, cfg config.Config, stderr io.Writer) (*accounts.Auth, func(), error) {
	store, closeDB, err := accountStore(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	a, err := door.NewAuth(cfg, planner.Words(), store, app.NewLogger(cfg, stderr))
	if err != nil {
		closeDB()
		return nil, nil, err
	}
	return a, closeDB, nil
}

const usersUsage = "usage: cairn users invite --email E [--locale fr|en]"

func users(cfg config.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "invite" {
		return errors.New(usersUsage)
	}
	fs := flag.NewFlagSet("users invite", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "address of the person to invite")
	locale := fs.String("locale", "fr", "language of the account and its mails: fr or en")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *email == "" {
		return errors.New(usersUsage)
	}
	ctx := context.Background()
	a, done, err := auth(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer done()
	u, created, err := a.Invite(ctx, *email, *locale)
	if err != nil {
		return err
	}
	state := "already a user"
	if created {
		state = "created"
	}
	fmt.Fprintf(stdout, "%s (%s, %s): invitation mailed with a sign-in link valid 30 minutes\n", u.Email, u.ID, state)
	set, _ := door.Decode(cfg)
	if set.SMTPURL == "" {
		fmt.Fprintf(stdout, "no smtp_url is configured: read it with `cairn mail read` (outbox %s)\n", door.OutboxDir(cfg))
	}
	return nil
}

const mailUsage = "usage: cairn mail list | mail read [ID] (the latest when no id is given)"

func readMail(cfg config.Config, args []string, stdout io.Writer) error {
	box := mail.NewOutbox(door.OutboxDir(cfg), nil)
	if len(args) == 0 {
		return errors.New(mailUsage)
	}
	msgs, err := box.List()
	if err != nil {
		return err
	}
	switch args[0] {
	case "list":
		if len(msgs) == 0 {
			fmt.Fprintf(stdout, "the outbox %s is empty\n", box.Dir())
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTO\tSUBJECT\tLINK")
		for _, m := range msgs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.ID, m.To, m.Subject, m.Link)
		}
		return tw.Flush()
	case "read":
		var m mail.Message
		switch {
		case len(args) > 1:
			if m, err = box.Read(args[1]); err != nil {
				return err
			}
		case len(msgs) == 0:
			return fmt.Errorf("the outbox %s is empty", box.Dir())
		default:
			m = msgs[len(msgs)-1]
		}
		fmt.Fprintf(stdout, "To: %s\nSubject: %s\nDate: %s\n\n%s", m.To, m.Subject, m.Created.Format("2006-01-02 15:04:05Z07:00"), m.Text)
		return nil
	}
	return errors.New(mailUsage)
}

const accessUsage = "usage: cairn access-requests list [--all]"

func accessRequests(cfg config.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "list" {
		return errors.New(accessUsage)
	}
	fs := flag.NewFlagSet("access-requests list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	all := fs.Bool("all", false, "include requests whose address is not verified yet")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	ctx := context.Background()
	a, done, err := auth(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer done()
	rs, err := a.AccessRequests(ctx, *all)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tSTATUS\tREQUESTED\tVERIFIED\tIP")
	for _, r := range rs {
		verified := "-"
		if r.VerifiedAt != nil {
			verified = r.VerifiedAt.UTC().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Email, r.Status, r.CreatedAt.UTC().Format("2006-01-02 15:04"), verified, r.IP)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rs) > 0 {
		fmt.Fprintln(stdout, "invite one with: cairn users invite --email E")
	}
	return nil
}
