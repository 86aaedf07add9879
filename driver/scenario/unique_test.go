package scenario

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func uniqueScenario(t testing.TB, values int, opt Options) *Scenario {
	t.Helper()
	src := fmt.Sprintf(`
name: u
params: {users: %d}
flow:
  - set: {uid: "uid:{unique 0..users}"}
  - request: {url: "/login?uid={{uid}}"}
`, values)
	sc, err := Parse("u.yaml", []byte(src), opt)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestUniqueNoOverlap: 64 users on 100 accounts, 200 iterations each (12,800 draws), never hold
// the same account at once. Each user records the account it drew in a shared set and fails on
// finding it there already, yields while holding it (so the others draw meanwhile), then takes
// it out of the set before giving it back: the set is always a subset of what the allocator
// has handed out. Mutants caught (each tried): tryTake claiming without checking the bit
// (thousands of overlaps); release clearing the wrong bit (overlaps); Release forgetting a
// value without clearing its bit (the values run out: the draw reports ExhaustedError).
func TestUniqueNoOverlap(t *testing.T) {
	const users, values, iterations = 64, 100, 200
	sc := uniqueScenario(t, values, Options{})
	if err := sc.CheckUsers(users); err != nil {
		t.Fatal(err)
	}
	set := sc.Steps[0].Sets[0]
	var mu sync.Mutex
	held := map[string]int{}   // account -> user holding it
	counts := map[string]int{} // account -> times drawn
	var wg sync.WaitGroup
	for u := 0; u < users; u++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := &env{vars: make([]string, len(sc.Vars)), user: u, d: sc.NewDraws(42, u)}
			for i := 0; i < iterations; i++ {
				v := set.Value.String(e)
				if err := e.d.Err(); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if other, ok := held[v]; ok {
					t.Errorf("user %d drew %s while user %d held it", u, v, other)
				}
				held[v] = u
				counts[v]++
				mu.Unlock()
				runtime.Gosched()
				mu.Lock()
				delete(held, v)
				mu.Unlock()
				e.d.Release()
			}
		}()
	}
	wg.Wait()
	if len(counts) != values {
		t.Errorf("%d of %d accounts drawn", len(counts), values)
	}
}

// TestUniqueUniform: with 63 of 100 values held by other users at every draw, each value is
// still drawn equally often over a run. 64 users take turns in one goroutine, so the test is
// deterministic: each in turn ends its iteration (gives its value back) and draws again; 12,800
// draws, 128 per value on average. A value just drawn is held and cannot come again at once, so
// the counts are far more even than independent draws': chi-square ≈ 12 (seeds 1–5: 11.5–16.6)
// where independent draws give ≈ 99. Mutants caught (each tried): retrying a held pick with a
// scan from the range's start (chi-square ≈ 2,200); a first pick from
// half the range (chi-square 211–247). Not caught, because the self-balancing hides it: retrying
// with the next value up instead of a random one (chi-square 12–16, as the real thing).
func TestUniqueUniform(t *testing.T) {
	const users, values, rounds = 64, 100, 200
	sc := uniqueScenario(t, values, Options{})
	set := sc.Steps[0].Sets[0]
	envs := make([]*env, users)
	for u := range envs {
		envs[u] = &env{vars: make([]string, 1), user: u, d: sc.NewDraws(5, u)}
	}
	counts := map[string]int{}
	for r := 0; r < rounds; r++ {
		for _, e := range envs {
			e.d.Release()
			counts[set.Value.String(e)]++
		}
	}
	if len(counts) != values {
		t.Errorf("%d of %d accounts drawn", len(counts), values)
	}
	mean, chi := float64(users*rounds)/values, 0.0
	for _, n := range counts {
		chi += (float64(n) - mean) * (float64(n) - mean) / mean
	}
	if chi > 50 {
		t.Errorf("chi-square %.1f over %d values: the draws are not uniform (%v)", chi, values, counts)
	}
}

// TestUniqueTwoDrawsOneRange: two draws of one range in an iteration never give one user the
// same value twice, and the range then serves half as many users.
func TestUniqueTwoDrawsOneRange(t *testing.T) {
	sc, err := Parse("t.yaml", []byte(`
name: t
flow:
  - set: {from: "{unique 0..10}", to: "{{unique 0 10}}"}
  - request: {url: "/transfer?from={{from}}&to={{to}}"}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sc.MaxUsers() != 5 {
		t.Errorf("MaxUsers %d, want 5", sc.MaxUsers())
	}
	e := &env{vars: make([]string, len(sc.Vars)), d: sc.NewDraws(1, 0)}
	set := sc.Steps[0].Sets
	for i := 0; i < 1000; i++ {
		a, b := set[0].Value.String(e), set[1].Value.String(e)
		if a == b {
			t.Fatalf("iteration %d: from and to are both %s", i, a)
		}
		e.d.Release()
	}
	var ce *CapacityError
	if err := sc.CheckUsers(6); !errors.As(err, &ce) || ce.PerUser != 2 || ce.Max != 5 || !strings.Contains(err.Error(), "each user holds 2") {
		t.Errorf("6 users on 10 values drawn twice: %v", err)
	}
}

// TestUniqueCapacity: a range of 100 values serves 100 users and refuses 101, naming the
// variable, its line and the numbers.
func TestUniqueCapacity(t *testing.T) {
	sc := uniqueScenario(t, 100, Options{})
	if sc.MaxUsers() != 100 || sc.CheckUsers(100) != nil {
		t.Fatalf("MaxUsers %d, CheckUsers(100) %v", sc.MaxUsers(), sc.CheckUsers(100))
	}
	err := sc.CheckUsers(101)
	want := "variable uid (line 5) draws from {unique 0..users}, whose values no two virtual users hold at once, " +
		"but the range has 100 values (0…99): enough for 100 users at once, not 101"
	if err == nil || err.Error() != want {
		t.Errorf("CheckUsers(101):\n got %v\nwant %s", err, want)
	}
	plain, err := Parse("p.yaml", []byte("name: p\nflow:\n  - set: {a: '{0..3}'}\n"), Options{})
	if err != nil || plain.CheckUsers(1000) != nil || len(plain.draws) != 0 {
		t.Errorf("a scenario without unique draws limits nothing: %v", err)
	}
	// with every value held, a draw fails instead of spinning or handing out a held value
	one := uniqueScenario(t, 1, Options{})
	e1 := &env{vars: make([]string, 1), d: one.NewDraws(1, 0)}
	e2 := &env{vars: make([]string, 1), user: 1, d: one.NewDraws(1, 1)}
	one.Steps[0].Sets[0].Value.String(e1)
	one.Steps[0].Sets[0].Value.String(e2)
	var ex *ExhaustedError
	if err := e2.d.Err(); !errors.As(err, &ex) || ex.Var != "uid" {
		t.Errorf("second holder of a one-value range: %v", err)
	}
}

// TestUniqueSlices: agent k of K draws only from its own part; the parts are disjoint, cover
// the range and differ in size by at most one.
func TestUniqueSlices(t *testing.T) {
	const values, agents = 100, 3
	seen := map[string]int{}
	for k := 0; k < agents; k++ {
		sc := uniqueScenario(t, values, Options{Slice: Slice{Index: k, Count: agents}})
		if m := sc.MaxUsers(); m != 33 && m != 34 {
			t.Errorf("slice %d: MaxUsers %d", k, m)
		}
		e := &env{vars: make([]string, 1), d: sc.NewDraws(1, 0)}
		mine := map[string]bool{}
		for i := 0; i < 2000; i++ {
			mine[sc.Steps[0].Sets[0].Value.String(e)] = true
		}
		for v := range mine {
			if a, ok := seen[v]; ok {
				t.Errorf("%s drawn by agents %d and %d", v, a, k)
			}
			seen[v] = k
		}
		if err := sc.CheckUsers(35); err == nil || !strings.Contains(err.Error(), "this driver's slice of the range") {
			t.Errorf("slice %d, 35 users: %v", k, err)
		}
	}
	if len(seen) != values {
		t.Errorf("the slices cover %d of %d values", len(seen), values)
	}
	for _, bad := range []Slice{{Index: 3, Count: 3}, {Index: -1, Count: 2}, {Index: 0, Count: -1}} {
		if _, err := Parse("u.yaml", []byte("name: u\nflow:\n  - set: {a: '{unique 0..10}'}\n"), Options{Slice: bad}); err == nil {
			t.Errorf("slice %+v accepted", bad)
		}
	}
	if _, err := Parse("u.yaml", []byte("name: u\nflow:\n  - set: {a: '{unique 0..2}'}\n"), Options{Slice: Slice{Index: 0, Count: 3}}); err == nil ||
		!strings.Contains(err.Error(), "too few for 3 slices") {
		t.Errorf("2 values in 3 slices: %v", err)
	}
}

func TestUniqueErrors(t *testing.T) {
	for _, tc := range []struct{ name, flow, want string }{
		{"in a url", "  - request: {url: '/a?u={unique 0..5}'}\n", "a unique draw belongs in a set: step"},
		{"in a check", "  - request: {url: /a, check: {contains: '{{unique 0 5}}'}}\n", "a unique draw belongs in a set: step"},
		{"repeated", "  - set: {a: {value: '{unique 0..5}', repeat: 2, join: ','}}\n", "a unique draw cannot be repeated"},
		{"overlapping ranges", "  - set: {a: '{unique 0..5}'}\n  - set: {b: '{unique 3..8}'}\n",
			"line 4: set b: template \"{unique 3..8}\": {unique 3..8}: it overlaps {unique 0..5} (line 3)"},
		{"empty", "  - set: {a: '{unique 5..5}'}\n", "empty range"},
		{"too large", "  - set: {a: '{unique 0..1000000000}'}\n", "a unique range has at most"},
		{"unique as a name", "  - set: {unique: '1'}\n", `variable name "unique"`},
	} {
		_, err := Parse("f.yaml", []byte("name: x\nflow:\n"+tc.flow), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// the same range twice, and disjoint ranges, are fine
	if _, err := Parse("f.yaml", []byte("name: x\nflow:\n  - set: {a: '{unique 0..5}', b: '{unique 0..5}', c: '{unique 5..9}'}\n"),
		Options{}); err != nil {
		t.Error(err)
	}
}

// TestSeedReproducesDraws: a user's draws — ranges, unique values, think times — depend only on
// the seed and the user's number.
func TestSeedReproducesDraws(t *testing.T) {
	sc, err := Parse("s.yaml", []byte(`
name: s
flow:
  - set: {uid: "uid:{unique 0..1000}", sym: "s:{0..100000}"}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	think, _ := ParseThink("exp:1s")
	draw := func(seed uint64, user int) string {
		e := &env{vars: make([]string, 2), user: user, d: sc.NewDraws(seed, user)}
		var b strings.Builder
		for i := 0; i < 50; i++ {
			for _, s := range sc.Steps[0].Sets {
				b.WriteString(s.Value.String(e) + " ")
			}
			fmt.Fprintf(&b, "%v; ", think.Sample(e.d.R))
			e.d.Release()
		}
		return b.String()
	}
	a := draw(7, 3)
	if b := draw(7, 3); a != b {
		t.Errorf("seed 7, user 3 drew differently:\n%s\n%s", a, b)
	}
	if b := draw(8, 3); a == b {
		t.Error("seeds 7 and 8 drew the same")
	}
	if b := draw(7, 4); a == b {
		t.Error("users 3 and 4 drew the same")
	}
}

// BenchmarkDraw compares a unique draw (take, then release at the iteration's end) with a plain
// random one, one user per goroutine, on a realistic range and on a crowded one: 100 values of
// which other users hold 63 throughout, as when 64 users share 100 accounts (a draw then
// needs 100/37 ≈ 2.7 tries on average). Run: go test -run XXX -bench Draw -cpu 1,2 ./driver/scenario/
func BenchmarkDraw(b *testing.B) {
	for _, bc := range []struct {
		name         string
		values, held int
		unique       bool
	}{{"rand/500000", 500000, 0, false}, {"unique/500000", 500000, 0, true}, {"unique/100-63-held", 100, 63, true}} {
		b.Run(bc.name, func(b *testing.B) {
			src := fmt.Sprintf("name: b\nflow:\n  - set: {uid: \"uid:{0..%d}\"}\n", bc.values)
			if bc.unique {
				src = strings.Replace(src, "{0..", "{unique 0..", 1)
			}
			sc, err := Parse("b.yaml", []byte(src), Options{})
			if err != nil {
				b.Fatal(err)
			}
			tmpl := sc.Steps[0].Sets[0].Value
			for u := 0; u < bc.held; u++ {
				tmpl.Append(nil, &env{vars: make([]string, 1), d: sc.NewDraws(1, 1000+u)})
			}
			var next struct {
				sync.Mutex
				n int
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				next.Lock()
				u := next.n
				next.n++
				next.Unlock()
				e := &env{vars: make([]string, 1), user: u, d: sc.NewDraws(rand.Uint64(), u)}
				var buf []byte
				for pb.Next() {
					buf = tmpl.Append(buf[:0], e)
					e.d.Release()
				}
			})
		})
	}
}
