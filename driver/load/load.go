// Package load is the load engine: it runs a workload's virtual users through ramp-up, a
// measured steady state and ramp-down, in a closed model (N users looping, the 2007 paper's method) or
// an open model (a target arrival rate, latency measured from each iteration's intended start so a
// stalled server cannot hide its stall), and returns merged measurements as report.Results.
package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tradebench/tradebench/driver/machine"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/internal/clock"
	"github.com/tradebench/tradebench/report"
)

// DefaultMaxInFlight bounds the open model's concurrent iterations when Config.MaxInFlight is 0.
const DefaultMaxInFlight = 10000

// LateThreshold is how far behind its intended start an open-model iteration may begin before it
// counts as late.
const LateThreshold = 10 * time.Millisecond

// Config is one run's load model and phases.
type Config struct {
	// Users is the closed model's number of virtual users. They start staggered evenly across
	// RampUp and stop in reverse order across RampDown.
	Users int
	// Rate > 0 selects the open model: iterations started per second (reached linearly over
	// RampUp, held through Steady; no new arrivals in RampDown, which only lets work finish).
	Rate float64
	// MaxInFlight caps the open model's concurrent iterations; an arrival when the cap is reached
	// is dropped and counted (0 = DefaultMaxInFlight).
	MaxInFlight int
	// Iterations, if > 0, stops each closed-model user after that many iterations.
	Iterations int

	RampUp, Steady, RampDown time.Duration

	// Stages, if set, is the closed model's load profile over the whole run (Users is its peak,
	// Steady its length, no ramps): the users follow it (UsersAt) instead of a ramp and a
	// steady state.
	Stages []Stage

	// Resources are the system under test's processes to sample each second of the run (CPU,
	// resident memory) into the results' sut section; none: no sut section.
	Resources []sut.Source
	// OwnProcesses are names of other processes on this machine that belong to the measurement
	// (a local database server the system under test uses): the machine section counts their
	// CPU as the measurement's own, not as other processes' (package machine).
	OwnProcesses []string
	// StartAt, if set, is the wall-clock instant the run starts (the first moment of ramp-up):
	// the agents of a distributed run all start at the controller's instant, so their seconds
	// line up. Zero starts now.
	StartAt time.Time
	// Watchers are the run's one observation point: each is given every closed second, in
	// order, as the engine emits it — the progress line, the live metrics and dashboard, an
	// agent's ticks to its controller are all watchers, composed by the driver. The engine
	// only emits; it draws nothing.
	Watchers []Watcher
}

// Watcher watches a run second by second. Second is called on the run's ticker goroutine, once
// a second in order: it must return quickly (the next second waits for it) and keep nothing of s
// past the call (copy the histogram to keep it).
type Watcher interface {
	Second(s *Second)
}

// TxWatcher is a Watcher that wants each second per transaction (Second.Tx): the recorder then
// keeps every second per transaction, which the others do not pay for.
type TxWatcher interface {
	Watcher
	WantsTx() bool
}

// Ender is a Watcher told when the run's seconds have ended (a terminal's progress line is
// cleared, so what follows starts on a clean line).
type Ender interface {
	End()
}

// WatcherFunc is a Watcher of one function.
type WatcherFunc func(s *Second)

// Second implements Watcher.
func (f WatcherFunc) Second(s *Second) { f(s) }

// Second is one closed second of a run in full, as a Watcher sees it.
type Second struct {
	Point report.SeriesPoint
	// Hist is the second's passed transactions' latency (2 significant figures).
	Hist *hdr.Histogram
	// Tx is the second per transaction; nil when no watcher asked for it (TxWatcher) or only
	// the totals are known (a fleet controller merges the agents' totals).
	Tx []*recorder.TxSecond
	// Bytes, Dropped and Late are totals so far: the response bytes of every phase, and the
	// open model's arrivals dropped and late in the measured window (as the results count them).
	Bytes, Dropped, Late int64
	// Monitor samples the system under test's resources (nil: not watched); read it with SUT.
	Monitor *sut.Monitor
	// Status is the emitter's own words on the second, e.g. a fleet's "agents 3/3" ("" = none).
	Status string
}

// WantsTx reports whether any of ws wants each second per transaction.
func WantsTx(ws []Watcher) bool {
	for _, w := range ws {
		if t, ok := w.(TxWatcher); ok && t.WantsTx() {
			return true
		}
	}
	return false
}

// End tells every watcher of ws that is an Ender that the seconds have ended.
func End(ws []Watcher) {
	for _, w := range ws {
		if e, ok := w.(Ender); ok {
			e.End()
		}
	}
}

// SUT is the system under test's resources so far, nil when they are not watched. It copies
// every sample so far, so only a watcher that shows them calls it.
func (s *Second) SUT() *report.SUT { return s.Monitor.Snapshot() }

// Open reports whether c is the open model.
func (c Config) Open() bool { return c.Rate > 0 }

// pacer is the open model's schedule: Rate reached linearly over RampUp.
func (c Config) pacer() Pacer {
	return Ramp{To: c.Rate, Over: c.RampUp}
}

func (c Config) validate() error {
	switch {
	case c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0):
		return fmt.Errorf("rate must be a positive number of iterations per second, got %v", c.Rate)
	case !c.Open() && c.Users < 1:
		return fmt.Errorf("users must be at least 1, got %d", c.Users)
	case c.Steady <= 0:
		return fmt.Errorf("steady state duration must be positive, got %v", c.Steady)
	case c.RampUp < 0 || c.RampDown < 0:
		return errors.New("ramp durations must not be negative")
	case c.MaxInFlight < 0:
		return fmt.Errorf("max in flight must not be negative, got %d", c.MaxInFlight)
	case len(c.Stages) > 0 && (c.Open() || c.RampUp != 0 || c.RampDown != 0 || c.Steady != StagesDuration(c.Stages)):
		return errors.New("a load profile in stages is the closed model's whole run: no rate, no ramps, the steady state its length")
	}
	if len(c.Stages) > 0 {
		return ValidateStages(c.Stages)
	}
	return nil
}

// Workload makes the state of each virtual user.
type Workload interface {
	NewUser(id int) User
}

// User runs iterations. Iterate runs one whole iteration (one script pass) and returns when it is
// done or ctx ends. Transactions are recorded through it; an error return is an iteration that
// could not run at all (it is counted under the transaction name "iteration").
type User interface {
	Iterate(ctx context.Context, it *Iteration) error
}

// Func is a stateless workload: every user calls the same function.
type Func func(ctx context.Context, it *Iteration) error

// NewUser implements Workload.
func (f Func) NewUser(int) User { return f }

// Iterate implements User.
func (f Func) Iterate(ctx context.Context, it *Iteration) error { return f(ctx, it) }

// Iteration is one pass of a user's script: the handle through which it records.
type Iteration struct {
	user     int
	n        int64
	shard    *recorder.Shard
	intended time.Time // open model: when this iteration should have started
	started  bool
	first    time.Time // the first StartTx's value, the iteration's start for its own record
}

// User is the virtual user's number (0-based).
func (it *Iteration) User() int { return it.user }

// Number is the iteration's sequence number for its user (closed) or in the run (open), 0-based.
func (it *Iteration) Number() int64 { return it.n }

// StartTx returns the start time for the next transaction. In the open model the first call of an
// iteration returns the intended start, so time spent queued behind a slow server is counted in
// the latency (no coordinated omission); every other call returns the current time.
func (it *Iteration) StartTx() time.Time {
	if !it.started {
		it.started = true
		if !it.intended.IsZero() {
			it.first = it.intended
		} else {
			it.first = clock.Now()
		}
		return it.first
	}
	return clock.Now()
}

// Done records a transaction from start until now. err nil passes, a context cancellation (the
// run ending) stops, anything else fails.
func (it *Iteration) Done(name string, start time.Time, err error) {
	it.shard.Transaction(name, start, time.Since(start), err)
}

// Record records a transaction of a known duration.
func (it *Iteration) Record(name string, start time.Time, d time.Duration, err error) {
	it.shard.Transaction(name, start, d, err)
}

// Hit records one HTTP request: its start, status (0 for no response) and response bytes.
func (it *Iteration) Hit(start time.Time, status int, bytes int64) {
	it.shard.Hit(start, status, bytes)
}

// Think pauses for d, or until ctx ends (then it returns ctx's error).
func (it *Iteration) Think(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run is the state of one Run.
type run struct {
	cfg         Config
	w           Workload
	rec         *recorder.Recorder
	start       time.Time
	steadyStart time.Time
	steadyEnd   time.Time
	end         time.Time
	active      atomic.Int64
	dropped     atomic.Int64
	late        atomic.Int64
	arrivals    atomic.Int64
	mon         *sut.Monitor // nil: no resources watched
}

// Run executes the workload under cfg and returns its results. It returns early, with what was
// measured so far, if ctx is cancelled (the results then say so in Notes).
func Run(ctx context.Context, cfg Config, w Workload) (*report.Results, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	shards := runtime.GOMAXPROCS(0) * 2
	if shards > 16 {
		shards = 16
	}
	r := &run{cfg: cfg, w: w, rec: recorder.NewRecorder(shards)}
	if WantsTx(cfg.Watchers) {
		r.rec.KeepTxSeconds()
	}
	if !cfg.StartAt.IsZero() {
		if err := sleepUntil(ctx, cfg.StartAt); err != nil {
			return nil, err
		}
	}
	r.start = time.Now()
	r.steadyStart = r.start.Add(cfg.RampUp)
	r.steadyEnd = r.steadyStart.Add(cfg.Steady)
	r.end = r.steadyEnd.Add(cfg.RampDown)
	r.rec.SetWindow(r.start, r.steadyStart, r.steadyEnd)

	// The run's end must reach every user as a cancellation (a "stop"), even when the caller's
	// context ends by deadline, so in-flight transactions are not miscounted as failures.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stopAfter := context.AfterFunc(ctx, cancel)
	defer stopAfter()
	var mon *sut.Monitor
	if len(cfg.Resources) > 0 {
		mon = sut.Start(runCtx, r.start, cfg.Resources...)
	}
	r.mon = mon // before the ticker: a watcher's second carries it
	var tickWG sync.WaitGroup
	tickDone := make(chan struct{})
	tickWG.Add(1)
	go func() { defer tickWG.Done(); r.ticker(runCtx, tickDone) }()
	dcpu := watchDriverCPU(r.steadyStart, r.steadyEnd)
	mw := machine.Start(runCtx, machine.Config{SUT: cfg.Resources, OwnNames: cfg.OwnProcesses}, r.steadyStart, r.steadyEnd)

	switch {
	case cfg.Open():
		r.runOpen(runCtx)
	case len(cfg.Stages) > 0:
		r.runStaged(runCtx)
	default:
		r.runClosed(runCtx)
	}
	close(tickDone)
	tickWG.Wait()
	End(cfg.Watchers)
	ended := time.Now()

	res := report.New("")
	if mon != nil {
		var err error
		if res.SUT, err = mon.Stop(); err != nil {
			res.Notes = append(res.Notes, err.Error())
		}
	}
	res.StartedAt = r.start.UTC()
	res.EndedAt = ended.UTC()
	steady := cfg.Steady.Seconds()
	if ended.Before(r.steadyEnd) { // interrupted: measure what ran
		steady = math.Max(0, ended.Sub(r.steadyStart).Seconds())
		res.Notes = append(res.Notes, fmt.Sprintf("run interrupted after %.1fs; the steady state was cut short", ended.Sub(r.start).Seconds()))
	}
	r.rec.Fill(res, steady)
	res.Dropped = r.dropped.Load()
	res.Late = r.late.Load()
	res.Arrivals = r.arrivals.Load()
	res.Driver = dcpu.result()
	res.Machine = mw.Result()
	for _, src := range cfg.Resources {
		if res.Driver != nil && src.PID() == os.Getpid() {
			res.Driver.SharedWithSUT = true // the server runs in this process: its CPU is in ours
		}
	}
	cfg.Describe(res)
	res.System = System()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, nil
}

// Describe records the load model and phases in res's settings and phases; a distributed run's
// controller describes its merged results the same way. The engine measures and describes what
// it ran; the full disclosure is the caller's to add (disclose.Fill), from these settings.
func (c Config) Describe(res *report.Results) {
	res.Phases = report.Phases{RampUpSeconds: c.RampUp.Seconds(), SteadySeconds: c.Steady.Seconds(), RampDownSeconds: c.RampDown.Seconds()}
	res.Settings.Model = report.ModelClosed
	if c.Open() {
		res.Settings.Model = report.ModelOpen
		res.Settings.Rate = c.Rate
		res.Settings.MaxInFlight = c.MaxInFlight
	} else {
		res.Settings.Users = c.Users
		res.Settings.Iterations = c.Iterations
	}
	res.Settings.RampUp = c.RampUp.String()
	res.Settings.Steady = c.Steady.String()
	res.Settings.RampDown = c.RampDown.String()
	if len(c.Stages) > 0 {
		res.Settings.Stages = FormatStages(c.Stages)
	}
}

// System describes the measuring machine.
func System() *report.System {
	return &report.System{
		Go:         runtime.Version(),
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
		CPUs:       runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
}

// runClosed starts Users loops, staggered over RampUp, each stopping at its own time in RampDown.
func (r *run) runClosed(ctx context.Context) {
	n := r.cfg.Users
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		startAt := r.start.Add(time.Duration(int64(r.cfg.RampUp) * int64(i) / int64(n)))
		// users leave in reverse order of arrival, the last to come is the first to go
		stopAt := r.steadyEnd.Add(time.Duration(int64(r.cfg.RampDown) * int64(n-i) / int64(n)))
		if r.cfg.RampDown == 0 {
			stopAt = r.steadyEnd
		}
		if err := sleepUntil(ctx, startAt); err != nil {
			break
		}
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			uctx, cancel := context.WithCancel(ctx)
			defer cancel()
			stop := time.AfterFunc(time.Until(stopAt), cancel)
			defer stop.Stop()
			r.active.Add(1)
			defer r.active.Add(-1)
			r.loop(until{uctx, stopAt}, id)
		}(i)
	}
	wg.Wait()
}

// loop is one closed-model user: a new user of the workload iterating until ctx ends (or its
// Iterations are done).
func (r *run) loop(ctx context.Context, id int) {
	u := r.w.NewUser(id)
	it := &Iteration{user: id, shard: r.rec.Shard(id)}
	for k := int64(0); ctx.Err() == nil; k++ {
		if r.cfg.Iterations > 0 && k >= int64(r.cfg.Iterations) {
			return
		}
		it.n, it.started = k, false
		r.iterate(ctx, u, it)
	}
}

// iterate runs one iteration. An iteration that fails as a whole is recorded as of its first
// transaction's start (or its intended start, or now if it began none): its record only counts
// a failure in the window it started in and holds no latency, so reading the clock at the start
// of every iteration for it would cost every iteration and buy nothing.
func (r *run) iterate(ctx context.Context, u User, it *Iteration) {
	it.first = time.Time{}
	if err := u.Iterate(ctx, it); err != nil && ctx.Err() == nil {
		start := it.first
		if start.IsZero() {
			start = it.intended
		}
		if start.IsZero() {
			start = clock.Now()
		}
		it.Record("iteration", start, time.Since(start), err)
	}
}

// runOpen launches arrivals on the pacer's schedule until the steady state ends.
func (r *run) runOpen(ctx context.Context) {
	pacer := r.cfg.pacer()
	// arrival is when arrival k is due; the end of the steady state (no more) when the schedule has ended
	arrival := func(k int64) time.Time {
		at, ok := pacer.Arrival(k)
		if !ok {
			return r.steadyEnd
		}
		return r.start.Add(at)
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, r.cfg.MaxInFlight)
	var poolMu sync.Mutex
	var pool []User
	nextID := 0
	getUser := func() (User, int) {
		poolMu.Lock()
		defer poolMu.Unlock()
		if n := len(pool); n > 0 {
			u := pool[n-1]
			pool = pool[:n-1]
			return u, -1
		}
		nextID++
		return r.w.NewUser(nextID - 1), nextID - 1
	}
	putUser := func(u User) {
		poolMu.Lock()
		pool = append(pool, u)
		poolMu.Unlock()
	}
	cancelled, cancelIters := context.WithCancel(ctx)
	defer cancelIters()
	iterCtx := until{cancelled, r.end}
	var k int64
	for ctx.Err() == nil {
		at := arrival(k)
		if !at.Before(r.steadyEnd) {
			break
		}
		if err := sleepUntil(ctx, at); err != nil {
			break
		}
		// launch every arrival that is due, so a slow scheduler catches up instead of drifting
		now := time.Now()
		for ; ; k++ {
			at = arrival(k)
			if at.After(now) || !at.Before(r.steadyEnd) {
				break
			}
			if !at.Before(r.steadyStart) {
				r.arrivals.Add(1)
			}
			select {
			case sem <- struct{}{}:
			default:
				if !at.Before(r.steadyStart) {
					r.dropped.Add(1)
				}
				continue
			}
			if now.Sub(at) > LateThreshold && !at.Before(r.steadyStart) {
				r.late.Add(1)
			}
			wg.Add(1)
			r.active.Add(1)
			go func(n int64, intended time.Time) {
				defer func() { <-sem; r.active.Add(-1); wg.Done() }()
				u, id := getUser()
				if id < 0 {
					id = int(n)
				}
				it := &Iteration{user: id, n: n, shard: r.rec.Shard(int(n)), intended: intended}
				r.iterate(iterCtx, u, it)
				putUser(u)
			}(k, at)
		}
	}
	// ramp-down: no new arrivals; in-flight work may finish until the end, then it is stopped
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(time.Until(r.end))
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		cancelIters()
		<-done
	case <-ctx.Done():
		cancelIters()
		<-done
	}
}

// until is a context that has ended at its time: Err reads the clock, so a user's next
// transaction is not begun after the user's stop time even when the timer that cancels the
// embedded context has not run yet (a busy machine runs it late). A transaction begun after the
// measured window is neither measured nor counted as stopped, yet the target serves it: a buy
// placed that the run never counted (the reconciliation of a faulted drive found two).
// The HTTP client checks Err as it is about to write a request, after the transaction's start
// time was taken, so no request of a transaction started at or after the stop time is sent.
type until struct {
	context.Context // cancelled at at, by a timer
	at              time.Time
}

// Err implements context.Context: the embedded context's error, or context.Canceled (the run
// ending, a "stop") from the stop time on.
func (c until) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !clock.Now().Before(c.at) {
		return context.Canceled
	}
	return nil
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *run) phase(now time.Time) string {
	switch {
	case now.Before(r.steadyStart):
		return "ramp-up"
	case now.Before(r.steadyEnd):
		return "steady"
	default:
		return "ramp-down"
	}
}

// ticker closes each second of the series and hands it to the watchers.
func (r *run) ticker(ctx context.Context, done <-chan struct{}) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	wantTx := WantsTx(r.cfg.Watchers)
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			// the second that just ended belongs to the phase it was in
			ph := r.phase(now.Add(-500 * time.Millisecond))
			p := r.rec.Tick(now, ph, int(r.active.Load()))
			if len(r.cfg.Watchers) == 0 {
				continue
			}
			s := &Second{Point: p, Hist: r.rec.SecondHistogram(), Bytes: r.rec.Bytes(),
				Dropped: r.dropped.Load(), Late: r.late.Load(), Monitor: r.mon}
			if wantTx {
				s.Tx = r.rec.TxSeconds()
			}
			for _, w := range r.cfg.Watchers {
				w.Second(s)
			}
		}
	}
}

// ProbeIteration is an iteration outside any run, for a preflight: what it records is kept
// nowhere, so the one request tried before the load does not count in the results.
func ProbeIteration() *Iteration {
	rec := recorder.NewRecorder(1)
	now := time.Now()
	rec.SetWindow(now, now, now) // nothing it records falls in a measured window
	return &Iteration{shard: rec.Shard(0)}
}

// WithTx makes w a TxWatcher: it is given each second per transaction (the live metrics and
// dashboard show every transaction).
func WithTx(w Watcher) Watcher { return txWatcher{w} }

type txWatcher struct{ Watcher }

func (txWatcher) WantsTx() bool { return true }
