package report

import (
	"strings"
	"testing"
)

// DefaultLabel names a run by what set its load, each word once: quick mode's scenario and
// mode are both "quick" ("quick quick 5 users" before).
func TestDefaultLabel(t *testing.T) {
	for _, tc := range []struct {
		r    Results
		want string
	}{
		{Results{Workload: "http", Scenario: "quick", Settings: Settings{Mode: "quick", Users: 5}}, "quick 5 users"},
		{Results{Workload: "http", Scenario: "stocktrader", Settings: Settings{Users: 50, Think: "1s"}}, "stocktrader 50 users think 1s"},
		{Results{Workload: "http", Scenario: "stocktrader", Settings: Settings{Mode: "peak", Rate: 200}}, "stocktrader peak 200/s"},
	} {
		if got := DefaultLabel(&tc.r); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.r.Settings, got, tc.want)
		}
	}
}

// The summary's byte count says it counts bodies only: wrk's counts headers too, and the two
// were compared as equals.
func TestSummaryBytesAreBodies(t *testing.T) {
	var b strings.Builder
	(&Results{Workload: "http", Scenario: "quick", Hits: 10, Bytes: 2048}).WriteSummary(&b)
	if !strings.Contains(b.String(), "body bytes: 2.0 KiB") {
		t.Errorf("summary:\n%s", b.String())
	}
}
