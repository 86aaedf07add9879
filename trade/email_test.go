package trade

import (
	"strings"
	"testing"
)

// ValidateEmail accepts what DayTrader's @Email accepts (the emails of DayTrader's own JMeter
// plan among them) and refuses what it refuses, with the reason.
func TestValidateEmail(t *testing.T) {
	valid := []string{"", "a@b", "uid5@42.com", "rndEmail@email.com", "vu3@example.com",
		"first.last+tag@sub.example.co.uk", `"uid:5"@example.com`, "x@[192.0.2.1]", "x@[IPv6:2001:db8::1]",
		"ünï@例え.jp", "o'brien@my-host.example", strings.Repeat("a", 64) + "@x.org"}
	for _, e := range valid {
		if err := ValidateEmail(e); err != nil {
			t.Errorf("ValidateEmail(%q) = %v, want valid", e, err)
		}
	}
	invalid := map[string]string{
		"uid:5@example.com":                "colon",
		"no-at":                            "no @",
		"@x.com":                           "nothing before the @",
		"a..b@x.com":                       "before the @",
		".a@x.com":                         "before the @",
		"a@":                               "after the @",
		"a@-x.com":                         "after the @",
		"a@x-.com":                         "after the @",
		"a@x..com":                         "after the @",
		"a b@x.com":                        "before the @",
		"a@[300.1.1.1]":                    "after the @",
		strings.Repeat("a", 65) + "@x.org": "longer than 64",
		"a@" + strings.Repeat("b", 64):     "after the @",
	}
	for e, why := range invalid {
		err := ValidateEmail(e)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ValidateEmail(%q) = %v, want an error saying %q", e, err, why)
			continue
		}
		if te := AsError(err); te == nil || te.Code != CodeInvalid {
			t.Errorf("ValidateEmail(%q): %v is not CodeInvalid", e, err)
		}
	}
	if err := ValidateRegister(RegisterRequest{UserID: "u", Password: "p", Email: "uid:5@example.com"}); err == nil {
		t.Error("ValidateRegister accepts a colon in the email")
	}
	if err := ValidateProfile(AccountProfile{UserID: "u", Email: "uid:5@example.com"}); err == nil {
		t.Error("ValidateProfile accepts a colon in the email")
	}
}
