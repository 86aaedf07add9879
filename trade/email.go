package trade

import (
	"net/netip"
	"regexp"
	"strings"
)

// Email validation as Apache DayTrader does it (Bean Validation's @Email, Hibernate Validator's
// rules), so a registration or profile update that one system refuses the other refuses too.
// An empty email is allowed (the field is optional); otherwise the address is local@domain with
//   - a local part of at most 64 characters: dot-separated atoms of letters, digits, non-ASCII
//     letters and !#$%&'*+/=?^_`{|}~- , or "quoted strings" (which may hold anything printable);
//     so "uid:5@example.com" is refused — a colon needs quotes;
//   - a domain of dot-separated labels (letters, digits, non-ASCII letters, inner hyphens; at most
//     63 characters each, 255 in all), or an IP literal in brackets: [192.0.2.1], [IPv6:2001:db8::1].
var (
	emailLocalPart = regexp.MustCompile("(?i)^(?:" + emailAtom + "+|" + emailQuoted + ")(?:\\.(?:" + emailAtom + "+|" + emailQuoted + "))*$")
	emailLabel     = regexp.MustCompile(`(?i)^` + emailLabelChars + `+(?:-+` + emailLabelChars + `+)*$`)
)

// emailLabelChars is the class of characters a domain label may hold (a backquote among them).
const emailLabelChars = `[a-z0-9\x{80}-\x{FFFF}!#$%&'*+/=?^_` + "`" + `{|}~]`

const (
	emailAtom   = `[a-z0-9!#$%&'*+/=?^_` + "`" + `{|}~\x{80}-\x{FFFF}-]`
	emailQuoted = `"(?:[a-z0-9!#$%&'*.(),<>\[\]:; @+/=?^_` + "`" + `{|}~\x{80}-\x{FFFF}-]|\\\\|\\")+"`
)

// ValidateEmail refuses an address DayTrader's @Email refuses, saying why.
func ValidateEmail(email string) error {
	if email == "" {
		return nil
	}
	if err := ValidateField("email", email, false); err != nil {
		return err
	}
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return Errorf(CodeInvalid, "email %q is not a valid address: it has no @", email)
	}
	local, domain := email[:at], email[at+1:]
	switch {
	case local == "":
		return Errorf(CodeInvalid, "email %q is not a valid address: nothing before the @", email)
	case len(local) > 64:
		return Errorf(CodeInvalid, "email %q is not a valid address: the part before the @ is longer than 64 characters", email)
	case !emailLocalPart.MatchString(local):
		why := "it may hold letters, digits, dots between words and !#$%&'*+/=?^_`{|}~-"
		if strings.Contains(local, ":") {
			why = "a colon is not allowed there (user ids like uid:5 cannot be used as is)"
		}
		return Errorf(CodeInvalid, "email %q is not a valid address: the part before the @ is not valid: %s", email, why)
	}
	if !validEmailDomain(domain) {
		return Errorf(CodeInvalid, "email %q is not a valid address: %q after the @ is not a host name or [IP address]", email, domain)
	}
	return nil
}

func validEmailDomain(d string) bool {
	if d == "" || len(d) > 255 {
		return false
	}
	if strings.HasPrefix(d, "[") && strings.HasSuffix(d, "]") {
		ip := d[1 : len(d)-1]
		if v6, ok := strings.CutPrefix(ip, "IPv6:"); ok {
			a, err := netip.ParseAddr(v6)
			return err == nil && a.Is6()
		}
		a, err := netip.ParseAddr(ip)
		return err == nil && a.Is4()
	}
	for label := range strings.SplitSeq(d, ".") {
		if len(label) > 63 || !emailLabel.MatchString(label) {
			return false
		}
	}
	return true
}

// ValidateProfile checks a profile update before it reaches a store: every field's text, and
// the email as DayTrader validates it.
func ValidateProfile(p AccountProfile) error {
	for _, f := range [][2]string{{"full name", p.FullName}, {"address", p.Address}, {"email", p.Email}, {"credit card", p.CreditCard},
		{"password", p.Password}} {
		if err := ValidateField(f[0], f[1], false); err != nil {
			return err
		}
	}
	return ValidateEmail(p.Email)
}
