package riffstate

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/como-technologies/riff/riffcore/name"
	"github.com/como-technologies/riff/riffcore/quote"
	"github.com/como-technologies/riff/riffcore/wire"
)

// The emails and the user names of the people: the check of an email
// as a provider gives it, its normal form, and the USER that it gives
// (docs/people.md, "The names of the people").

// MaxEmail is the longest email that a command of the people takes.
const MaxEmail = 254

// NormalEmail gives an email as the people hold it: lower case, with no
// space around it.
func NormalEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ParseEmail checks the email of a command of the people and gives it in
// lower case: the riff compares emails as the providers give them, in
// lower case. An email is NAME@DOMAIN in ASCII, as a provider gives it
// (an international domain comes in its xn-- form): NAME holds letters,
// digits and the signs !#$%&'*+-/=?^_`{|}~ and dots, DOMAIN letters,
// digits, dashes and dots; at most 254 bytes. A character that is not
// visible (U+200B, a zero-width space) or that no provider gives makes
// a look-alike of another email, so the refusal names it as U+XXXX.
func ParseEmail(s string) (string, error) {
	trimmed := strings.TrimSpace(s)
	switch {
	case trimmed == "":
		return "", bad("a command of the people names a person by the email: give an email, for example bob@example.com")
	case len(trimmed) > MaxEmail:
		return "", bad("the email %s has %d bytes; the limit is %d", quote.Input(s), len(trimmed), MaxEmail)
	}
	// The check reads the email as it came: a lower case of U+212A (the
	// Kelvin sign) is k, so a check after it would take a look-alike.
	if why, ok := strangeCharacter(trimmed); ok {
		return "", bad("the email %s holds %s: riff takes an email as the provider gives it. Type the email again, with no such character", quote.Input(s), why)
	}
	e := strings.ToLower(trimmed)
	local, domain, ok := strings.Cut(e, "@")
	if !ok || local == "" || domain == "" || strings.Contains(domain, "@") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return "", bad("%s is no email: an email is NAME@DOMAIN, for example bob@example.com", quote.Input(s))
	}
	if i := strings.IndexFunc(domain, func(r rune) bool { return !(r == '-' || r == '.' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9') }); i >= 0 {
		return "", bad("the email %s holds %s in its domain: a domain holds letters, digits, dashes and dots", quote.Input(s), characterName(rune(domain[i])))
	}
	return e, nil
}

// strangeCharacter gives the first character of an email that is not in
// an email as a provider gives it, named for a person, or false when
// each character is one.
func strangeCharacter(email string) (string, bool) {
	for i, r := range email {
		switch {
		case r == utf8.RuneError && runeSize(email[i:]) == 1:
			return fmt.Sprintf("a byte that is no UTF-8 (byte %d)", i+1), true
		case r > unicode.MaxASCII && invisible(r):
			return characterName(r) + ", a character that is not visible", true
		case r > unicode.MaxASCII:
			return characterName(r) + ", a character that is not ASCII (a provider gives an email in ASCII, an international domain in its xn-- form)", true
		case r <= ' ' || r == 0x7f:
			return characterName(r) + ", a space or a control character", true
		case !emailSign(r):
			return characterName(r) + ", a sign that no email of a provider has", true
		}
	}
	return "", false
}

// runeSize gives the bytes of the first character of s: 1 for a byte
// that is no UTF-8.
func runeSize(s string) int {
	_, size := utf8.DecodeRuneInString(s)
	return size
}

// emailSign says whether an ASCII character may be in an email: a
// letter, a digit, @, a dot, or a sign of the atext of RFC 5322 §3.2.3.
func emailSign(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("@.!#$%&'*+-/=?^_`{|}~", r)
}

// invisible says whether a character shows nothing by itself: a format
// character (U+200B, U+200D, U+2060, U+FEFF, the marks of direction), a
// space, a combining mark, a variation selector, a default ignorable
// code point (U+3164, U+115F), or a character that does not print.
func invisible(r rune) bool {
	return !unicode.IsGraphic(r) || unicode.IsSpace(r) || unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me,
		unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// characterName names a character as U+200B, with the character itself
// in quotes when it shows.
func characterName(r rune) string {
	if r <= unicode.MaxASCII && r > ' ' && r != 0x7f || r > unicode.MaxASCII && !invisible(r) {
		return fmt.Sprintf("U+%04X (%q)", r, r)
	}
	return fmt.Sprintf("U+%04X", r)
}

// UserOfEmail makes the USER of an email: the part before @, in lower
// case, with each character that a user name cannot hold as '-'.
func UserOfEmail(email string) (string, error) {
	parsed, err := ParseEmail(email)
	if err != nil {
		return "", err
	}
	local, _, _ := strings.Cut(parsed, "@")
	var b strings.Builder
	for _, r := range local {
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	user := b.String()
	if len(user) > name.MaxNameLen {
		user = user[:name.MaxNameLen]
	}
	if err := name.CheckUser(user); err != nil {
		return "", bad("the email %s gives no user name: %v", quote.Input(email), err)
	}
	return user, nil
}

// ParsePersonEmail checks an email that lets a person join (an invite,
// a new admin, --owner, --admins), as [ParseEmail] does, and refuses one
// whose USER would be a name of the server ([ServerNames]): no person
// can have it.
func ParsePersonEmail(s string) (string, error) {
	user, err := UserOfEmail(s)
	if err != nil {
		return "", err
	}
	email, _ := ParseEmail(s)
	if IsServerName(user) {
		return "", wire.Refuse(wire.NotAllowed, "%s would join as the user %s, and %s is a name of riff-server itself (riff@server): no person can have it. Invite another email of the person, whose part before @ is not %s", email, user, user, user)
	}
	return email, nil
}
