package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// A summary that did not pass is a *Failed counting its violations (the command's exit status
// 4), one that passed is no error; --json prints the summary's fields.
// (Mutant audit-failed-summary-passes: a failed audit's Err is nil, and 'audit' exits 0.)
func TestSummaryErrAndJSON(t *testing.T) {
	s := &Summary{Passed: false, Checks: Checks, ViolationCount: 3, Violations: []string{"balance: uid:1"}}
	var f *Failed
	if err := s.Err(); !errors.As(err, &f) || f.Violations != 3 {
		t.Errorf("a failed audit's error %v, want a *Failed of 3 violations", err)
	}
	if err := (&Summary{Passed: true}).Err(); err != nil {
		t.Errorf("a passed audit's error %v", err)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, s); err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Passed || back.ViolationCount != 3 || back.Violations[0] != "balance: uid:1" {
		t.Errorf("JSON %s read back as %+v (%v)", b.String(), back, err)
	}
}
