package driver

import (
	"fmt"
	"time"

	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/report"
)

// RampUpPerUser and MaxDefaultRampUp make the default ramp-up grow with the users: users that
// all start in the same instant send their first requests together — a login storm the
// platform never sees in production — and measure that; 50 ms per user (10 s for 200) spreads
// them, up to a minute.
const (
	RampUpPerUser    = 50 * time.Millisecond
	MaxDefaultRampUp = time.Minute
)

// DefaultRampUp is the ramp-up a closed-model run of users takes when none is given: at least
// def (the command's own default), else RampUpPerUser a user up to MaxDefaultRampUp.
func DefaultRampUp(users int, def time.Duration) time.Duration {
	return max(def, min(time.Duration(users)*RampUpPerUser, MaxDefaultRampUp))
}

// LockStep says, when users are likely to move in lock-step, why: more than one user of the
// closed model that start within one think time of each other and then all pause exactly the
// same (a fixed think time) arrive together every cycle, so the run measures a burst each
// cycle instead of a steady load. "" when they are not.
func LockStep(p Phases, think scenario.Think) string {
	if p.Rate > 0 || p.Users < 2 || think.Kind != scenario.ThinkFixed || p.RampUp >= think.A {
		return ""
	}
	return fmt.Sprintf(report.WarningPrefix+"lock-step: %d users start within %v and think exactly %v (fixed): their requests arrive in bursts every cycle, "+
		"and the latencies measure the bursts; randomize the think time (--think %v, uniform 50–150 %%) or ramp up over more than one think time",
		p.Users, p.RampUp, think.A, think.A)
}
