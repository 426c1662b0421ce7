package main

import (
	"flag"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/como-technologies/riff/riffengine"
	"github.com/como-technologies/riff/riffengine/idtoken"
	"github.com/como-technologies/riff/riffengine/tokens"
	"github.com/como-technologies/riff/riffstate"
)

// signInSettings are the flags of sign-in: the OpenID Connect provider,
// the OAuth client of riff login, who may join, and the public URL that
// the DPoP proofs name.
type signInSettings struct {
	issuer        string
	clientID      string
	clientSecret  string
	allowedDomain string
	owner         string
	require       bool
	publicURL     string
	accessLife    time.Duration
	// The people of the settings: the admins (emails, comma-separated),
	// and the times of the owner role.
	admins    string
	ownerWait time.Duration
	ownerGone time.Duration
	ownerWarn time.Duration
}

func (s *signInSettings) register(fs *flag.FlagSet) {
	fs.StringVar(&s.issuer, "issuer", "https://accounts.google.com", "the OpenID Connect provider of sign-in (RIFF_ISSUER)")
	fs.StringVar(&s.clientID, "client-id", "", "the OAuth client ID of riff login at the provider; with it the riff has sign-in (RIFF_CLIENT_ID)")
	fs.StringVar(&s.clientSecret, "client-secret", "", "the OAuth client secret of riff login (an installed app: no secret to the provider) (RIFF_CLIENT_SECRET)")
	fs.StringVar(&s.allowedDomain, "allowed-domain", "", "the people of this email domain may join (the hd claim or the domain of the email) (RIFF_ALLOWED_DOMAIN)")
	fs.StringVar(&s.owner, "owner", "", "the email of the first owner: it may join, and a riff that never had an owner gets it (RIFF_OWNER)")
	fs.BoolVar(&s.require, "require-sign-in", false, "refuse each call with no token, also with no provider (RIFF_REQUIRE_SIGN_IN)")
	fs.DurationVar(&s.accessLife, "access-life", tokens.DefaultAccessLife, "the life of an access token of a person or a session; riff refreshes or swaps again after it (RIFF_ACCESS_LIFE)")
	fs.StringVar(&s.publicURL, "public-url", "", "the scheme and host that clients call, which the DPoP proofs name, e.g. https://riff-abc.a.run.app; the reply to riff invite names it (RIFF_PUBLIC_URL; default: http:// and the Host of each call)")
	fs.StringVar(&s.admins, "admins", "", "the emails of the admins of the settings, comma-separated: no command of the people changes them (RIFF_ADMINS)")
	fs.DurationVar(&s.ownerWait, "owner-wait", time.Duration(riffstate.DefaultOwnerWaitMs)*time.Millisecond, "a request for the owner role (riff owner --take) waits this long; then the server grants it, unless the owner denies it (RIFF_OWNER_WAIT)")
	fs.DurationVar(&s.ownerGone, "owner-gone", time.Duration(riffstate.DefaultOwnerGoneMs)*time.Millisecond, "an owner with no sign of life this long is gone: the server ends the owner role, and the person stays an admin (RIFF_OWNER_GONE)")
	fs.DurationVar(&s.ownerWarn, "owner-warn", time.Duration(riffstate.DefaultOwnerWarnMs)*time.Millisecond, "the server warns the owner in chat this long before that end (RIFF_OWNER_WARN)")
}

// people gives the settings of the people for the state: the admins of
// the settings (checked by check), the public address that the reply to
// an invite names, and the times of the owner role.
func (s signInSettings) people() riffstate.PeopleOptions {
	admins, _ := parseAdmins(s.admins)
	return riffstate.PeopleOptions{Admins: admins, PublicAddress: strings.TrimSuffix(s.publicURL, "/"),
		OwnerWaitMs: s.ownerWait.Milliseconds(), OwnerGoneMs: s.ownerGone.Milliseconds(), OwnerWarnMs: s.ownerWarn.Milliseconds()}
}

// parseAdmins reads the emails of --admins: each an email, in lower
// case, each once, sorted.
func parseAdmins(list string) ([]string, error) {
	var admins []string
	for _, part := range strings.Split(list, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		email, err := riffstate.ParsePersonEmail(part)
		if err != nil {
			return nil, fmt.Errorf("--admins: %v", err)
		}
		if !slices.Contains(admins, email) {
			admins = append(admins, email)
		}
	}
	slices.Sort(admins)
	return admins, nil
}

// ownerEmail gives the email of --owner as the people hold it (lower
// case), "" with none; check refused one that is no email.
func (s signInSettings) ownerEmail() string {
	email, _ := riffstate.ParsePersonEmail(s.owner)
	return email
}

// on says whether the riff has sign-in: a provider, or --require-sign-in.
func (s signInSettings) on() bool { return s.clientID != "" || s.require }

// check refuses settings that do not go together.
func (s signInSettings) check() error {
	if !s.on() {
		for _, f := range []struct{ name, value string }{{"--owner", s.owner}, {"--allowed-domain", s.allowedDomain}, {"--client-secret", s.clientSecret}, {"--public-url", s.publicURL}, {"--admins", s.admins}} {
			if f.value != "" {
				return fmt.Errorf("%s needs a riff with sign-in: give --client-id (or --require-sign-in)", f.name)
			}
		}
		return nil
	}
	if s.accessLife < time.Second || s.accessLife > 24*time.Hour {
		return fmt.Errorf("--access-life %s must be from 1s to 24h", s.accessLife)
	}
	if s.owner != "" {
		if _, err := riffstate.ParsePersonEmail(s.owner); err != nil {
			return fmt.Errorf("--owner: %v", err)
		}
	}
	if _, err := parseAdmins(s.admins); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"--owner-wait", s.ownerWait}, {"--owner-gone", s.ownerGone}, {"--owner-warn", s.ownerWarn}} {
		if f.d < time.Millisecond {
			return fmt.Errorf("%s %s must be a time of at least 1ms, such as 168h", f.name, f.d)
		}
	}
	if s.ownerWarn > s.ownerGone {
		return fmt.Errorf("--owner-warn %s is longer than --owner-gone %s: the warning comes before the end", s.ownerWarn, s.ownerGone)
	}
	if strings.Contains(s.allowedDomain, "@") {
		return fmt.Errorf("--allowed-domain %q is a domain, such as example.com, with no @", s.allowedDomain)
	}
	if s.publicURL != "" {
		u, err := url.Parse(s.publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return fmt.Errorf("--public-url %q must be a scheme and a host, such as https://riff.example.com", s.publicURL)
		}
	}
	if s.clientID != "" {
		if u, err := url.Parse(s.issuer); err != nil || u.Scheme == "" || u.Host == "" {
			return fmt.Errorf("--issuer %q is no URL", s.issuer)
		}
	}
	return nil
}

// tokens gives the options of the token store of the settings.
func (s signInSettings) tokens() tokens.Options {
	return tokens.Options{AccessLife: s.accessLife, SessionLife: s.accessLife}
}

// layer gives the token layer of the settings: with a provider, the ID
// token check of riffengine/idtoken.
func (s signInSettings) layer(e *riffengine.Engine) (*riffengine.SignedIn, error) {
	opts := riffengine.SignInOptions{PublicURL: s.publicURL}
	if s.clientID != "" {
		check, err := idtoken.New(idtoken.Options{Issuer: s.issuer, ClientID: s.clientID})
		if err != nil {
			return nil, err
		}
		opts = check.SignInOptions(s.clientSecret, s.publicURL)
	}
	return riffengine.NewSignedIn(e, opts)
}
