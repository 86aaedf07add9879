package scenario

import (
	"testing"
	"time"
)

// TestThinkValue: a think time flag is unset ("") until given, takes ParseThink's syntax, keeps
// the setting on a bad value, and asks for a unit on a bare number. Mutant: think-value-unset
// (Set not storing what it parsed: --think fixed:1s leaves the workload's own).
func TestThinkValue(t *testing.T) {
	var think *Think
	v := ThinkValue{&think}
	if v.String() != "" || (ThinkValue{}).String() != "" {
		t.Errorf("an unset think time shows as %q", v.String())
	}
	if err := v.Set("fixed:1s"); err != nil || think == nil || *think != (Think{Kind: ThinkFixed, A: time.Second}) {
		t.Fatalf("Set(fixed:1s): %v, think %v", err, think)
	}
	if v.String() != "fixed:1s" {
		t.Errorf("String() = %q, want fixed:1s", v.String())
	}
	if err := v.Set("often"); err == nil || think.String() != "fixed:1s" {
		t.Errorf("Set(often): %v, think now %v", err, think)
	}
	if !v.NeedsUnit() {
		t.Error("a bare number given as a think time would get no unit hint")
	}
}
