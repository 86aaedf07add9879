package load

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// The profile of the issue, 30s:50,1m:200,30s:0, runs 0 users at its start, 25 halfway up the
// first leg, 50 at its end, 125 halfway to 200, 200 at the top, 100 halfway down and none at
// the end; it reads back as written.
// Mutant (scripts/mutants.d/stages-leg-from-zero): each leg starts from 0 users, not from the
// previous leg's target.
func TestStagesUsersAt(t *testing.T) {
	st, err := ParseStages("30s:50, 1m:200,30s:0")
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatStages(st); got != "30s:50,1m0s:200,30s:0" {
		t.Errorf("read back as %q", got)
	}
	if StagesPeak(st) != 200 || StagesDuration(st) != 2*time.Minute {
		t.Errorf("peak %d over %v, want 200 over 2m", StagesPeak(st), StagesDuration(st))
	}
	for _, c := range []struct {
		at    time.Duration
		users int
	}{{0, 0}, {15 * time.Second, 25}, {30 * time.Second, 50}, {60 * time.Second, 125}, {90 * time.Second, 200},
		{105 * time.Second, 100}, {2 * time.Minute, 0}} {
		if got := UsersAt(st, c.at); got != c.users {
			t.Errorf("at %v: %d users, want %d", c.at, got, c.users)
		}
	}
	jump, _ := ParseStages("0s:10,10s:10")
	if UsersAt(jump, 0) != 10 || UsersAt(jump, 5*time.Second) != 10 {
		t.Errorf("a 0 s leg does not jump: %d, %d", UsersAt(jump, 0), UsersAt(jump, 5*time.Second))
	}
}

// A mistyped profile is refused with what is wrong in it, before any load.
func TestStagesRefused(t *testing.T) {
	for in, want := range map[string]string{
		"":                                    "empty",
		"30s":                                 "want DURATION:USERS",
		"30:50":                               `"30" is not a duration`,
		"30s:fifty":                           "not a whole number of users",
		"30s:-1":                              "negative target",
		"-5s:3":                               "negative duration",
		"30s:200000":                          "at most 100000",
		"0s:5":                                "last no time",
		"30s:0,10s:0":                         "no stage has any users",
		"25h:5":                               "more than 24h0m0s",
		strings.Repeat("1s:1,", 100) + "1s:0": "101 stages: at most 100",
	} {
		_, err := ParseStages(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%.30q: %v, want an error saying %q", in, err, want)
		}
	}
	if err := (Config{Users: 3, Steady: time.Second, RampUp: time.Second, Stages: []Stage{{time.Second, 3}}}).validate(); err == nil {
		t.Error("a profile with a ramp-up besides was accepted")
	}
}

// users counts a workload's users as the engine makes and ends them.
type users struct {
	mu              sync.Mutex
	made, now, most int
}

func (u *users) NewUser(int) User {
	u.mu.Lock()
	u.made++
	u.mu.Unlock()
	return Func(func(ctx context.Context, it *Iteration) error {
		u.mu.Lock()
		u.now++
		u.most = max(u.most, u.now)
		u.mu.Unlock()
		defer func() { u.mu.Lock(); u.now--; u.mu.Unlock() }()
		<-ctx.Done() // each iteration lasts until the user is stopped
		return nil
	})
}

// A real run follows its profile: up to 3 users, down to 1, up to 3 again, down to 0. The
// engine starts 3 users, stops 2, starts 2 more (new users of the workload, as new visitors):
// 5 made, never more than 3 at once, none left running, and the results record the profile.
// Counts of events, not timings: on a slow machine every change still happens, in order.
// Mutant (scripts/mutants.d/stages-never-stop): a user is never stopped before the end.
func TestStagedRunFollowsTheProfile(t *testing.T) {
	st, err := ParseStages("150ms:3,150ms:1,150ms:3,150ms:0")
	if err != nil {
		t.Fatal(err)
	}
	var u users
	res, err := Run(context.Background(), Config{Users: StagesPeak(st), Steady: StagesDuration(st), Stages: st}, &u)
	if err != nil {
		t.Fatal(err)
	}
	// (a user started and stopped again before its goroutine ran has made no iteration: at
	// most 3 at once, not exactly 3, on a busy machine)
	if u.made != 5 || u.most > 3 || u.now != 0 {
		t.Errorf("%d users made, at most %d at once, %d left; want 5, no more than 3, 0", u.made, u.most, u.now)
	}
	if res.Settings.Stages != "150ms:3,150ms:1,150ms:3,150ms:0" || res.Settings.Users != 3 {
		t.Errorf("results' settings: stages %q, users %d", res.Settings.Stages, res.Settings.Users)
	}
}
