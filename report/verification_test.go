package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

// The level is cumulative: every level up to it has a check passed and none failed; a level whose
// checks were all skipped is not passed; a failure anywhere makes the target not conformant and
// the headline names it; the JUnit is well-formed XML with one failure and the skips.
// Mutant: Judge counting a level of skips as passed gives level 3 in the second case.
func TestVerificationJudge(t *testing.T) {
	names := []string{"pages", "business rules", "isolation and input", "audit"}
	v := &Verification{Target: "http://u:secret@sut:8080", Checks: []Check{
		{ID: "pages.a", Level: 1, Outcome: CheckPass}, {ID: "pages.jsf", Level: 1, Outcome: CheckSkip, Reason: "no JSF"},
		{ID: "business.b", Level: 2, Outcome: CheckPass}, {ID: "isolation.c", Level: 3, Outcome: CheckPass},
		{ID: "audit.d", Level: 4, Outcome: CheckPass}}}
	v.Judge(names)
	if !v.Conformant || v.Level != 4 || v.Err() != nil || v.Headline() != "conformant: DayTrader-compatible to level 4 of 4" {
		t.Fatalf("all passed (one skip): level %d, conformant %v, %q", v.Level, v.Conformant, v.Headline())
	}
	v.Checks[3] = Check{ID: "isolation.c", Level: 3, Outcome: CheckSkip, Reason: "needs x"}
	v.Checks[4] = Check{ID: "audit.d", Level: 4, Outcome: CheckFail, Reason: "money", Evidence: []Evidence{{Request: "GET /x", Status: 500, Expected: "200", Got: "500"}}}
	v.Judge(names)
	if v.Conformant || v.Level != 2 || v.Levels[2].Outcome != CheckSkip || !strings.Contains(v.Headline(), "level 2 of 4 (audit failed: audit.d)") {
		t.Fatalf("a level of skips and a failure: level %d, levels %+v, %q", v.Level, v.Levels, v.Headline())
	}
	if err := v.Err(); err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("Err of a failed verification: %v (the target's password must be hidden)", err)
	}
	var b bytes.Buffer
	if err := v.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	var got junitSuites
	if err := xml.Unmarshal(b.Bytes(), &got); err != nil || got.Tests != 5 || got.Fails != 1 || got.Skipped != 2 || len(got.Suites) != 4 ||
		strings.Contains(b.String(), "secret") {
		t.Fatalf("junit: %v %+v\n%s", err, got, b.String())
	}
}
