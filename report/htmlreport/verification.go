package htmlreport

import (
	"io"
	"time"

	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/report"
)

// verificationView is the report of one `tradebench verify`: the outcome first, then each
// level's checks, every failure with its evidence open.
type verificationView struct {
	page
	V        *report.Verification
	Headline string
	Levels   []levelView
}

type levelView struct {
	report.VerificationLevel
	Checks []report.Check
}

// RenderVerification writes the report of a verification.
func RenderVerification(w io.Writer, v *report.Verification) error {
	shown := *v
	shown.Target = dsn.Redact(v.Target)
	view := verificationView{page: page{Title: "verify " + shown.Target, Generated: time.Now(), Version: v.Version},
		V: &shown, Headline: v.Headline()}
	for _, l := range v.Levels {
		lv := levelView{VerificationLevel: l}
		for _, c := range v.Checks {
			if c.Level == l.Number {
				lv.Checks = append(lv.Checks, c)
			}
		}
		view.Levels = append(view.Levels, lv)
	}
	return execute(w, "verification.tmpl", view)
}
