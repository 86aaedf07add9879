package publish

import (
	"fmt"
	"io"
	"os"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/report/htmlreport"
)

// Verification is where a verification's files go (tradebench verify, either suite): its JSON,
// the HTML report beside it, and its checks as JUnit XML — under the one overwrite rule of
// every results file: Check refuses an existing file unless Force, before anything is
// verified; Write replaces each file atomically (a temporary file renamed into place), so a
// symbolic link at a path is replaced, never followed.
type Verification struct {
	// JSON is the verification's JSON ("" = none); the report goes beside it
	// (htmlreport.PathFor) unless NoReport.
	JSON     string
	NoReport bool
	// JUnit is the checks as JUnit XML, one suite per level ("" = none).
	JUnit string
	// Force allows replacing existing files.
	Force bool
	// Log gets a line per file written (nil: none).
	Log io.Writer
}

// Check refuses, before anything is verified, a file that cannot be written or that exists
// (without Force): a *setting.Error naming JSON or JUnit (the overwrite refusal wraps an
// *ExistsError).
func (o Verification) Check() error {
	for _, f := range o.files() {
		if fi, err := os.Lstat(f.path); err == nil && !fi.IsDir() && !o.Force {
			return &setting.Error{Field: f.field, Err: &ExistsError{Path: f.path}}
		}
		if err := report.CheckWritable(f.path); err != nil {
			return &setting.Error{Field: f.field, Err: err}
		}
	}
	return nil
}

type verificationFile struct{ field, path string }

func (o Verification) files() []verificationFile {
	var out []verificationFile
	if o.JSON != "" {
		out = append(out, verificationFile{"JSON", o.JSON})
		if !o.NoReport {
			out = append(out, verificationFile{"JSON", htmlreport.PathFor(o.JSON)})
		}
	}
	if o.JUnit != "" {
		out = append(out, verificationFile{"JUnit", o.JUnit})
	}
	return out
}

// Write writes the verification's files, each atomically, after checking them again (the
// overwrite rule holds even without an earlier Check).
func (o Verification) Write(res *report.Verification) error {
	if err := o.Check(); err != nil {
		return err
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format, args...)
		}
	}
	if o.JSON != "" {
		if err := htmlreport.WriteFile(o.JSON, res.WriteJSON); err != nil {
			return fmt.Errorf("verification JSON: %w", err)
		}
		logf("results written to %s\n", o.JSON)
		if !o.NoReport {
			html := htmlreport.PathFor(o.JSON)
			if err := htmlreport.WriteFile(html, func(w io.Writer) error { return htmlreport.RenderVerification(w, res) }); err != nil {
				return fmt.Errorf("report: %w", err)
			}
			logf("report written to %s\n", html)
		}
	}
	if o.JUnit != "" {
		if err := htmlreport.WriteFile(o.JUnit, res.WriteJUnit); err != nil {
			return fmt.Errorf("JUnit XML: %w", err)
		}
		logf("JUnit XML written to %s\n", o.JUnit)
	}
	return nil
}
