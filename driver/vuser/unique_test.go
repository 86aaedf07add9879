package vuser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/scenario"
)

// sessions is a server that knows which accounts are logged in: a login of an account already
// logged in is an overlap. It also records each user's requests in order.
type sessions struct {
	mu       sync.Mutex
	in       map[string]bool
	overlaps []string
	logins   int
	byUser   map[string][]string
}

func (s *sessions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	uid := r.URL.Query().Get("uid")
	s.mu.Lock()
	switch r.URL.Path {
	case "/login":
		if s.in[uid] {
			s.overlaps = append(s.overlaps, uid)
		}
		s.in[uid] = true
		s.logins++
	case "/logout":
		delete(s.in, uid)
	case "/log":
		u := r.URL.Query().Get("user")
		s.byUser[u] = append(s.byUser[u], r.URL.RawQuery)
	}
	s.mu.Unlock()
	if r.URL.Path == "/login" {
		time.Sleep(time.Millisecond) // logged in a while, so the users overlap in time
	}
	fmt.Fprint(w, "ok")
}

func newSessions(t *testing.T) (*sessions, *httptest.Server) {
	s := &sessions{in: map[string]bool{}, byUser: map[string][]string{}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// runScenario runs src runs times with the same workload, as a peak search's steps do.
func runScenario(t *testing.T, target, src string, seed uint64, users, iterations, runs int) {
	t.Helper()
	sc, err := scenario.Parse("u.yaml", []byte(src), scenario.Options{RunID: "R"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.CheckUsers(users); err != nil {
		t.Fatal(err)
	}
	w, err := New(Config{Target: target, Scenario: sc, KeepConnections: true, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < runs; r++ {
		res, err := load.Run(context.Background(), load.Config{Users: users, Iterations: iterations, Steady: time.Minute}, w)
		if err != nil {
			t.Fatal(err)
		}
		if res.Total.Errors != 0 || res.Total.Pass != int64(users*iterations*2) {
			t.Fatalf("run %d: %d passed, %d failed (want %d passed): %+v", r+1, res.Total.Pass, res.Total.Errors, users*iterations*2, res.Errors)
		}
	}
}

// TestUniqueAccountsAcrossUsers: 64 virtual users on 100 accounts, 30 iterations each, twice
// with the same workload (3,840 logins), never have the same account logged in at once. The
// server sees an overlap directly: it marks an account at its login and clears it at its
// logout, and the user gives the account back only after the logout's response, so the
// server's set is always within what the users hold. Mutants caught (each tried): the
// scenario's {unique 0..users} written {0..users} (dozens of overlaps); the allocator claiming
// without checking the bit (likewise); vuser not releasing at the iteration's end (the first
// run's users keep 64 accounts, so the second run's users find too few and fail).
func TestUniqueAccountsAcrossUsers(t *testing.T) {
	s, srv := newSessions(t)
	runScenario(t, srv.URL, `
name: u
params: {users: 100}
flow:
  - set: {uid: "uid:{unique 0..users}"}
  - request: {name: login, url: "/login?uid={{uid}}"}
  - request: {name: logout, url: "/logout?uid={{uid}}"}
`, 1, 64, 30, 2)
	if s.logins != 64*60 || len(s.overlaps) > 0 {
		t.Errorf("%d logins, %d of an account already logged in: %v", s.logins, len(s.overlaps), s.overlaps)
	}
}

// TestSeedReproducesRun: with the same seed each virtual user sends the same requests — its
// unique account, random symbol, choice branch, repeat count, picked link and think times all
// come from its own seeded stream — although the users interleave differently in each run.
func TestSeedReproducesRun(t *testing.T) {
	const src = `
name: s
think: 0s..2ms
flow:
  - set: {uid: "{unique 0..1000000}", sym: "s:{0..100000}"}
  - repeat: [1, 3]
    steps:
      - choice:
          - {name: a, weight: 1, steps: [{request: {url: "/log?user={{user}}&b=a&uid={{uid}}&sym={{sym}}"}}]}
          - {name: b, weight: 1, steps: [{request: {url: "/log?user={{user}}&b=b&uid={{uid}}&sym={{sym}}"}}]}
`
	runs := map[uint64][]map[string][]string{}
	for _, seed := range []uint64{7, 7, 8} {
		s, srv := newSessions(t)
		sc, err := scenario.Parse("s.yaml", []byte(src), scenario.Options{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := New(Config{Target: srv.URL, Scenario: sc, KeepConnections: true, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := load.Run(context.Background(), load.Config{Users: 4, Iterations: 20, Steady: time.Minute}, w); err != nil {
			t.Fatal(err)
		}
		if len(s.byUser) != 4 {
			t.Fatalf("requests of %d users", len(s.byUser))
		}
		runs[seed] = append(runs[seed], s.byUser)
	}
	a, b, c := runs[7][0], runs[7][1], runs[8][0]
	for u, reqs := range a {
		if !slices.Equal(reqs, b[u]) {
			t.Errorf("seed 7, user %s:\n%s\nthen\n%s", u, strings.Join(reqs, " "), strings.Join(b[u], " "))
		}
		if slices.Equal(reqs, c[u]) {
			t.Errorf("seeds 7 and 8 gave user %s the same requests", u)
		}
	}
}

// TestUniqueExhaustedFailsTheIteration: run without the capacity check (as a library caller
// might), two users on one account: the second user's iterations fail with a clear error while
// the first holds it, instead of sharing the account or spinning.
func TestUniqueExhaustedFailsTheIteration(t *testing.T) {
	s, srv := newSessions(t)
	sc, err := scenario.Parse("x.yaml", []byte(`
name: x
flow:
  - set: {uid: "uid:{unique 0..1}"}
  - request: {name: login, url: "/login?uid={{uid}}"}
  - think: 20ms
  - request: {name: logout, url: "/logout?uid={{uid}}"}
`), scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ce *scenario.CapacityError
	if err := sc.CheckUsers(2); !errors.As(err, &ce) {
		t.Fatalf("CheckUsers(2) = %v", err)
	}
	w, err := New(Config{Target: srv.URL, Scenario: sc, KeepConnections: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := load.Run(context.Background(), load.Config{Users: 2, Iterations: 5, Steady: time.Minute}, w)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.overlaps) > 0 {
		t.Errorf("the one account was logged in twice at once: %v", s.overlaps)
	}
	it, ok := res.Transaction("iteration")
	if !ok || it.Errors == 0 {
		t.Fatalf("no failed iterations: %+v", res.Transactions)
	}
	found := false
	for _, e := range res.Errors {
		found = found || strings.Contains(e.Example, "held by other virtual users")
	}
	if !found {
		t.Errorf("errors do not say why: %+v", res.Errors)
	}
}
