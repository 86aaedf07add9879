package load

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Stage is one leg of a multi-stage load profile (k6's stages, Gatling's injection steps):
// the closed model's virtual users move linearly from the previous stage's target (0 before
// the first) to Target over Duration. A Duration of 0 is a jump.
type Stage struct {
	Duration time.Duration `json:"duration"`
	Target   int           `json:"target"`
}

// Bounds of a profile: a mistyped profile ("30s:50000000", "1000h:5") is refused, not run.
const (
	MaxStages        = 100
	MaxStageUsers    = 100000
	MaxStagesTotal   = 24 * time.Hour
	maxStagesTextLen = 4096
)

// ParseStages reads a profile written as k6 users write it on one line: DURATION:USERS legs
// separated by commas, "30s:50,1m:200,30s:0" (to 50 users over 30 s, to 200 over a minute,
// down to 0 over 30 s). The one parser of the profile: the command line and configuration
// files use it, and ValidateStages checks its limits.
func ParseStages(s string) ([]Stage, error) {
	if len(s) > maxStagesTextLen {
		return nil, fmt.Errorf("%d characters: at most %d", len(s), maxStagesTextLen)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty: give DURATION:USERS legs, e.g. 30s:50,1m:200,30s:0")
	}
	var out []Stage
	for i, leg := range strings.Split(s, ",") {
		leg = strings.TrimSpace(leg)
		d, n, ok := strings.Cut(leg, ":")
		if !ok {
			return nil, fmt.Errorf("stage %d %q: want DURATION:USERS, e.g. 30s:50", i+1, leg)
		}
		dur, err := time.ParseDuration(strings.TrimSpace(d))
		if err != nil {
			return nil, fmt.Errorf("stage %d %q: %q is not a duration (30s, 1m, 1m30s)", i+1, leg, d)
		}
		users, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil {
			return nil, fmt.Errorf("stage %d %q: %q is not a whole number of users", i+1, leg, n)
		}
		out = append(out, Stage{Duration: dur, Target: users})
	}
	return out, ValidateStages(out)
}

// FormatStages writes a profile as ParseStages reads it.
func FormatStages(st []Stage) string {
	legs := make([]string, len(st))
	for i, s := range st {
		legs[i] = s.Duration.String() + ":" + strconv.Itoa(s.Target)
	}
	return strings.Join(legs, ",")
}

// ValidateStages checks a profile's limits: at most MaxStages legs, none negative, targets at
// most MaxStageUsers, at most MaxStagesTotal in all, and some load at some time.
func ValidateStages(st []Stage) error {
	if len(st) > MaxStages {
		return fmt.Errorf("%d stages: at most %d", len(st), MaxStages)
	}
	var total time.Duration
	peak := 0
	for i, s := range st {
		switch {
		case s.Duration < 0:
			return fmt.Errorf("stage %d: negative duration %v", i+1, s.Duration)
		case s.Target < 0:
			return fmt.Errorf("stage %d: negative target %d users", i+1, s.Target)
		case s.Target > MaxStageUsers:
			return fmt.Errorf("stage %d: %d users, at most %d", i+1, s.Target, MaxStageUsers)
		}
		total += s.Duration
		if total > MaxStagesTotal {
			return fmt.Errorf("the stages last more than %v", MaxStagesTotal)
		}
		peak = max(peak, s.Target)
	}
	switch {
	case total <= 0:
		return fmt.Errorf("the stages last no time: give each a duration")
	case peak == 0:
		return fmt.Errorf("no stage has any users")
	}
	return nil
}

// StagesDuration is how long the profile lasts.
func StagesDuration(st []Stage) time.Duration {
	var total time.Duration
	for _, s := range st {
		total += s.Duration
	}
	return total
}

// StagesPeak is the most users the profile asks for at once.
func StagesPeak(st []Stage) int {
	peak := 0
	for _, s := range st {
		peak = max(peak, s.Target)
	}
	return peak
}

// stageChange is one moment the profile's user count changes: from At on, Users run.
type stageChange struct {
	At    time.Duration
	Users int
}

// stageChanges are the moments the profile's whole number of users changes, in time order.
// Within a leg from a to b users over d, the count steps by one each time the straight line
// from a to b crosses a half (the line rounded): level a+k is reached at d·(k−½)/|b−a|. A leg
// of 0 s jumps at its start.
func stageChanges(st []Stage) []stageChange {
	var out []stageChange
	var t time.Duration
	from := 0
	for _, s := range st {
		steps := s.Target - from
		dir := 1
		if steps < 0 {
			steps, dir = -steps, -1
		}
		for k := 1; k <= steps; k++ {
			at := t
			if s.Duration > 0 {
				at += time.Duration((float64(k) - 0.5) / float64(steps) * float64(s.Duration))
			}
			out = append(out, stageChange{At: at, Users: from + dir*k})
		}
		t += s.Duration
		from = s.Target
	}
	return out
}

// UsersAt is the number of users the profile runs at t after its start: what the engine
// keeps running (0 after the profile's end).
func UsersAt(st []Stage, t time.Duration) int {
	if t >= StagesDuration(st) {
		return 0
	}
	n := 0
	for _, c := range stageChanges(st) {
		if c.At > t {
			break
		}
		n = c.Users
	}
	return n
}

// runStaged runs the closed model under the profile: at each change it starts users (the
// lowest numbers free) or stops the last started, as the ramp-down does; a user stopped and
// started again is a new user of the workload (NewUser), as a new visitor.
func (r *run) runStaged(ctx context.Context) {
	var wg sync.WaitGroup
	var running []context.CancelFunc // user i at index i
	set := func(n int) {
		for len(running) < n {
			id := len(running)
			uctx, cancel := context.WithCancel(ctx)
			running = append(running, cancel)
			wg.Add(1)
			r.active.Add(1)
			go func() {
				defer wg.Done()
				defer r.active.Add(-1)
				r.loop(uctx, id)
			}()
		}
		for len(running) > n {
			running[len(running)-1]()
			running = running[:len(running)-1]
		}
	}
	for _, c := range stageChanges(r.cfg.Stages) {
		if sleepUntil(ctx, r.start.Add(c.At)) != nil {
			break
		}
		set(c.Users)
	}
	_ = sleepUntil(ctx, r.steadyEnd)
	set(0)
	wg.Wait()
}
