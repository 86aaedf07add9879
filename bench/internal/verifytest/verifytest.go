// Package verifytest holds what the tests of the two conformance suites (bench/verify and
// bench/verifyservices) share.
package verifytest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// MustConform fails t with the summary (every failure's evidence) unless res is conformant.
// Its message starts "failed [IDS]", the ids of every failed check, which is what the mutants in
// scripts/mutants.d/verify-*.sed and verifyservices-*.sed expect: each breaks one rule and must
// fail exactly its check.
func MustConform(t testing.TB, res *report.Verification) {
	t.Helper()
	if res.Conformant {
		return
	}
	var b bytes.Buffer
	res.WriteSummary(&b)
	t.Fatalf("failed [%s]\n%s", strings.Join(res.Failed(), " "), b.String())
}
