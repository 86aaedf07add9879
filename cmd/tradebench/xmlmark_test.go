package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/bench/xmlmarkjob"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/xmlmark"
)

// corruptInvoicesEnv, set in the environment of a re-executed test binary (smokeCmd), corrupts
// XML Mark's generator there: every generated invoice gets an element after its Summary that
// the schema does not allow and no parser minds.
const corruptInvoicesEnv = "TRADEBENCH_TEST_CORRUPT_INVOICES"

func init() {
	if os.Getenv(smokeMainEnv) == "1" && os.Getenv(corruptInvoicesEnv) == "1" {
		xmlmark.CorruptGeneratedForTest(func(doc []byte) []byte {
			return bytes.Replace(doc, []byte("</Summary>\n"), []byte("</Summary>\n  <Signature/>\n"), 1)
		})
	}
}

// `xmlmark run DOM4 --validation 100` validates every document: 0 errors on the generated
// invoices; with the generator corrupted, every transaction fails with the validator's rule,
// element path and message, and the command exits non-zero; an out-of-range --validation is a
// usage error naming the flag.
// Mutants: the --validation flag not copied into the configuration (Validation stays 0 in the
// results and the corrupted run passes); Check skipped for the override (101 runs).
func TestXMLMarkRunValidation(t *testing.T) {
	if testing.Short() {
		t.Skip("runs XML Mark for a second, twice")
	}
	args := []string{"xmlmark", "run", "DOM4", "--validation", "100", "--users", "2", "--ramp-up", "0s", "--duration", "1s", "--ramp-down", "0s", "--progress", "off"}
	out := filepath.Join(t.TempDir(), "dom4.json")
	r := mustRun(t, append(args, "--out", out)...)
	res, err := report.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := xmlmarkjob.SettingsOf(res)
	if err != nil || rs.Validation != 100 || res.Total.Pass == 0 || res.Total.Errors != 0 {
		t.Errorf("settings %+v (%v), %d passed, %d failed\n%s", rs, err, res.Total.Pass, res.Total.Errors, r.stdout)
	}

	r = tbEnv(t, []string{corruptInvoicesEnv + "=1"}, args...)
	if r.code == 0 || !strings.Contains(r.stdout, "invalid: validation.element at /Invoice") ||
		!strings.Contains(r.stdout, "unexpected child element {"+xmlmark.Namespace+"}Signature") ||
		!strings.Contains(r.stderr, "inv100.xml is not valid against the invoice schema") {
		t.Errorf("corrupted invoices: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "error rate: 100.0000%") {
		t.Errorf("corrupted invoices: some transactions passed:\n%s", r.stdout)
	}

	r = tb(t, "xmlmark", "run", "DOM4", "--validation", "101", "--ramp-up", "0s", "--duration", "1s", "--ramp-down", "0s", "--progress", "off")
	if r.code != 2 || !strings.Contains(r.stderr, "--validation") || !strings.Contains(r.stderr, "Validation = 101") {
		t.Errorf("--validation 101: exit %d, stderr %q", r.code, r.stderr)
	}
}
