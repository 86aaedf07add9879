package scenario

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync/atomic"
)

// Unique draws: {unique A..B} in a set: value draws an integer A <= x < B that no other virtual
// user holds at the same moment; the user holds it until its iteration ends. Two users therefore
// never log in to the same account at once, so neither can sell a holding the other just sold.
//
// A range is a pool of values with one bit each, claimed by compare-and-swap: no lock, one CAS
// to take and one atomic AND to release. A draw tries a uniformly random value of the range and,
// when another user holds it, another, so the value taken is uniform among the free ones and,
// by symmetry, every value is drawn equally often over a run. The first candidate comes from
// the user's own random stream (Draws.R), so a seed reproduces it; the retries come from a
// second stream, so that contention, which depends on timing, never shifts the user's other
// random choices.
//
// Every draw of the same written range shares one pool (draws of different ranges must not
// overlap, which Parse checks). A user holds at most one value per draw in the scenario, so a
// pool with k draws serves range/k users at once: Scenario.CheckUsers refuses more.

// MaxUniqueValues bounds a unique range: its pool keeps one bit per value in memory.
const MaxUniqueValues = 1 << 27

// Slice restricts every unique range to one driver's part of it, so several drivers (agents)
// running the same scenario against the same system never draw the same value: part Index
// (0-based) of Count contiguous, equal parts (sizes differ by at most one). Agent k of K gets
// Slice{Index: k, Count: K}. The zero value means the whole range.
type Slice struct{ Index, Count int }

func (s Slice) whole() bool { return s.Count <= 1 }

func (s Slice) validate() error {
	if s.Count < 0 || s.Count > 0 && (s.Index < 0 || s.Index >= s.Count) {
		return fmt.Errorf("unique-value slice %d of %d: want 0 <= index < count", s.Index, s.Count)
	}
	return nil
}

// part returns the slice's part of [lo, hi).
func (s Slice) part(lo, hi int64) (int64, int64) {
	if s.whole() {
		return lo, hi
	}
	n, k, c := hi-lo, int64(s.Index), int64(s.Count)
	return lo + n/c*k + min(k, n%c), lo + n/c*(k+1) + min(k+1, n%c)
}

// pool is one unique range: values lo … lo+n-1, bit i of words set while value lo+i is held.
type pool struct {
	lo, n   int64
	written string // the range as written, e.g. {unique 0..users}
	wlo     int64  // the written range's bounds, before any Slice
	whi     int64
	draws   int    // draws in the scenario that take from this pool
	first   string // the variable of the first of them, and its line, for messages
	line    int
	words   []atomic.Uint64
}

func (p *pool) tryTake(i int64) bool {
	w, bit := &p.words[i>>6], uint64(1)<<(i&63)
	for {
		old := w.Load()
		if old&bit != 0 {
			return false
		}
		if w.CompareAndSwap(old, old|bit) {
			return true
		}
	}
}

func (p *pool) release(i int64) { p.words[i>>6].And(^(uint64(1) << (i & 63))) }

// scan looks for a free value from word start on, once round, and takes it.
func (p *pool) scan(start int) int64 {
	nw := len(p.words)
	for k := 0; k < nw; k++ {
		wi := (start + k) % nw
		for {
			free := ^p.words[wi].Load()
			if wi == nw-1 && p.n%64 != 0 {
				free &= 1<<(p.n%64) - 1 // the last word's bits past the range are not values
			}
			if free == 0 {
				break
			}
			i := int64(wi)*64 + int64(bits.TrailingZeros64(free))
			if p.tryTake(i) {
				return i
			}
		}
	}
	return -1
}

// ExhaustedError is a unique draw that found every value held: more users hold values of the
// range at once than it has, which Scenario.CheckUsers prevents.
type ExhaustedError struct {
	Var    string
	Values int64
}

func (e *ExhaustedError) Error() string {
	return fmt.Sprintf("set %s: all %d values of its unique range are held by other virtual users", e.Var, e.Values)
}

// CapacityError is a run with more virtual users at once than a unique range has values for.
type CapacityError struct {
	Var     string // the first variable drawing from the range
	Line    int
	Range   string // as written: {unique 0..users}
	Lo, Hi  int64  // the values drawn from: Lo … Hi-1 (this driver's slice, if sliced)
	Sliced  bool   // the range is this driver's slice of a larger one
	PerUser int    // values one user holds at once (draws from the range in the scenario)
	Users   int    // users asked for
	Max     int    // users the range can serve
}

func (e *CapacityError) Error() string {
	what := "the range"
	if e.Sliced {
		what = "this driver's slice of the range"
	}
	per := ""
	if e.PerUser > 1 {
		per = fmt.Sprintf(" and each user holds %d (the scenario draws from it %d times)", e.PerUser, e.PerUser)
	}
	return fmt.Sprintf("variable %s (line %d) draws from %s, whose values no two virtual users hold at once, "+
		"but %s has %d values (%d…%d)%s: enough for %d users at once, not %d",
		e.Var, e.Line, e.Range, what, e.Hi-e.Lo, e.Lo, e.Hi-1, per, e.Max, e.Users)
}

// MaxUsers is the most virtual users that may run the scenario at once: its unique ranges'
// values divided by the draws each user holds (math.MaxInt without unique draws).
func (s *Scenario) MaxUsers() int {
	m := math.MaxInt
	for _, p := range s.pools {
		m = min(m, int(p.n/int64(p.draws)))
	}
	return m
}

// CheckUsers returns a *CapacityError when users virtual users at once would need more values
// than a unique range has.
func (s *Scenario) CheckUsers(users int) error {
	for _, p := range s.pools {
		if max := int(p.n / int64(p.draws)); users > max {
			return &CapacityError{Var: p.first, Line: p.line, Range: p.written, Lo: p.lo, Hi: p.lo + p.n,
				Sliced: p.n != p.whi-p.wlo, PerUser: p.draws, Users: users, Max: max}
		}
	}
	return nil
}

// Draws is one virtual user's random state: its random stream R, for every random choice it
// makes (ranges, choice branches, repeat counts, picks, think times), and the unique values it
// holds. Not safe for concurrent use: one per user.
type Draws struct {
	// R is seeded from the run's seed and the user's number: a seed reproduces the user's draws.
	R     *rand.Rand
	probe *rand.Rand // retries of unique draws
	pools []*pool    // by draw slot
	held  []int64    // by draw slot: the index held in its pool, or -1
	err   error
	// the data row a round-robin Feed gave the user's iteration rowIter
	row      int
	rowIter  int64
	rowTaken bool
}

// NewDraws returns user's random state for a run seeded with seed.
func (s *Scenario) NewDraws(seed uint64, user int) *Draws {
	d := &Draws{R: rand.New(rand.NewPCG(seed, uint64(user)))}
	if len(s.draws) > 0 {
		d.probe = rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, uint64(user)))
		d.pools = s.draws
		d.held = make([]int64, len(s.draws))
		for i := range d.held {
			d.held[i] = -1
		}
	}
	return d
}

// take draws a value for slot, giving back the one the user held from it.
func (d *Draws) take(slot int) int64 {
	p := d.pools[slot]
	if i := d.held[slot]; i >= 0 {
		p.release(i)
		d.held[slot] = -1
	}
	i := d.R.Int64N(p.n)
	// With fewer holders than values one is free at every moment, so a random try succeeds
	// with probability >= 1/n and 16·n tries all fail with probability below e^-16; the scans
	// then look at every value in turn. Only a run over capacity gets past them.
	for tries := int64(0); !p.tryTake(i); tries++ {
		if tries < 16*p.n+64 {
			i = d.probe.Int64N(p.n)
			continue
		}
		i = -1
		for pass := 0; pass < 4 && i < 0; pass++ {
			i = p.scan(d.probe.IntN(len(p.words)))
		}
		if i < 0 {
			d.err = &ExhaustedError{Var: p.first, Values: p.n}
			return p.lo
		}
		break
	}
	d.held[slot] = i
	return p.lo + i
}

// Err returns, once, the error of a unique draw that found no free value since the last call.
func (d *Draws) Err() error {
	err := d.err
	d.err = nil
	return err
}

// Release gives back every unique value the user holds: its iteration has ended.
func (d *Draws) Release() {
	for slot, i := range d.held {
		if i >= 0 {
			d.pools[slot].release(i)
			d.held[slot] = -1
		}
	}
}

// uniqueDraw registers a unique draw of [lo, hi) written as src and returns its slot.
func (c *compiler) uniqueDraw(src string, lo, hi int64) (int, error) {
	if c.drawVar == "" {
		return 0, fmt.Errorf("a unique draw belongs in a set: step, whose variable holds the value for the iteration")
	}
	if c.drawRepeated {
		return 0, fmt.Errorf("a unique draw cannot be repeated (one value per draw; use several variables)")
	}
	var p *pool
	for _, q := range c.pools {
		switch {
		case q.wlo == lo && q.whi == hi:
			p = q
		case lo < q.whi && q.wlo < hi:
			return 0, fmt.Errorf("it overlaps %s (line %d): unique draws must use the same range or ranges that do not overlap", q.written, q.line)
		}
	}
	if p == nil {
		if hi-lo > MaxUniqueValues {
			return 0, fmt.Errorf("%d values; a unique range has at most %d", hi-lo, MaxUniqueValues)
		}
		if hi-lo < int64(c.slice.Count) {
			return 0, fmt.Errorf("%d values, too few for %d slices (one per driver)", hi-lo, c.slice.Count)
		}
		plo, phi := c.slice.part(lo, hi)
		p = &pool{lo: plo, n: phi - plo, written: src, wlo: lo, whi: hi, first: c.drawVar, line: c.drawLine}
		p.words = make([]atomic.Uint64, (p.n+63)/64)
		c.pools = append(c.pools, p)
	}
	p.draws++
	c.draws = append(c.draws, p)
	return len(c.draws) - 1, nil
}
