package fleet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/nats-io/nats.go"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/recorder"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
)

// ControllerConfig configures a distributed run's controller.
type ControllerConfig struct {
	// Agents is how many agents run the drive (at least 1).
	Agents int
	// Wait is how long to wait for them to join (0 = DefaultWait).
	Wait time.Duration
	// AllowLoss makes a run that lost agents succeed (the summary still says so).
	AllowLoss bool
	// Secret is the fleet secret (the NATS token: natsx.ResolveToken) every message is sealed
	// with; the agents must have the same. Required.
	Secret string
}

// DefaultWait is how long a controller waits for its agents by default.
const DefaultWait = time.Minute

// SetDefaults fills the zero fields that have a default.
func (c *ControllerConfig) SetDefaults() {
	if c.Wait == 0 {
		c.Wait = DefaultWait
	}
}

// Validate reports a controller that cannot run, as a *setting.Error naming the field; it
// checks c with its defaults filled.
func (c ControllerConfig) Validate() error {
	c.SetDefaults()
	switch {
	case c.Agents < 1:
		return setting.Errorf("Agents", "must be at least 1, got %d", c.Agents)
	case c.Wait < 0:
		return setting.Errorf("Wait", "must be positive, got %v", c.Wait)
	}
	return nil
}

// Controller runs drives on agents: a driver.Distributor.
type Controller struct {
	nc  *nats.Conn
	cfg ControllerConfig
	sealer
}

// NewController makes a controller on a NATS connection (see Connect).
func NewController(nc *nats.Conn, cfg ControllerConfig) *Controller {
	cfg.SetDefaults()
	return &Controller{nc: nc, cfg: cfg, sealer: sealer{key: []byte(cfg.Secret)}}
}

// member is one agent of a run, as the controller follows it.
type member struct {
	Hello
	index    int
	lastSeen time.Time
	state    string // "" running, report.AgentDone, report.AgentLost
	why      string // why it was lost
	results  *report.Results
	// what its ticks said about the steady state, for an agent lost before its final results
	pass, errors int64
	hist         *hdr.Histogram
	ticked       map[int]bool // the seconds it reported: one tick per second counts
}

// second is the fleet's merge of one second of the series.
type second struct {
	phase              string
	pass, errors, hits int64
	users              int
	hist               *hdr.Histogram
	agents             int
}

// run is the state of one distributed run.
type run struct {
	c      *Controller
	id     string
	plan   *driver.Plan
	mu     sync.Mutex
	agents map[string]*member // by agent id
	order  []*member
	series map[int]*second
	// seconds is the run's length in seconds, with a margin: a tick numbered beyond it is dropped
	seconds int
	// ignored counts messages dropped as not of this run or not from its agents
	ignored int
}

// Distribute implements driver.Distributor.
func (c *Controller) Distribute(ctx context.Context, p *driver.Plan) (*report.Results, error) {
	cfg := p.Config()
	k := c.cfg.Agents
	if err := c.cfg.Validate(); err != nil {
		return nil, &driver.UsageError{Err: err}
	}
	if len(c.cfg.Secret) < natsx.MinTokenLen { // checked here, not in Validate: cmd resolves it last
		return nil, setting.Errorf("Secret", "the fleet secret (the NATS token) must be at least %d characters: every message is sealed with it", natsx.MinTokenLen)
	}
	if cfg.Rate == 0 && cfg.Users < k {
		return nil, &driver.UsageError{Err: setting.Errorf("Users", "%d is fewer than the %d agents: every agent needs at least one user", cfg.Users, k)}
	}
	if cfg.MaxInFlight > 0 && cfg.MaxInFlight < k {
		return nil, &driver.UsageError{Err: setting.Errorf("MaxInFlight", "%d is fewer than the %d agents: every agent needs at least one", cfg.MaxInFlight, k)}
	}
	progress := cfg.Progress
	if progress == nil {
		progress = io.Discard
	}
	hellos, err := c.discover(ctx, progress)
	if err != nil {
		return nil, err
	}
	lc := p.Load()
	r := &run{c: c, id: cfg.RunID, plan: p, agents: map[string]*member{}, series: map[int]*second{},
		seconds: int((lc.RampUp+lc.Steady+lc.RampDown+resultGrace)/time.Second) + 1}
	for i, h := range hellos {
		m := &member{Hello: h, index: i, lastSeen: time.Now(), hist: recorder.NewHistogram(), ticked: map[int]bool{}}
		r.agents[h.ID] = m
		r.order = append(r.order, m)
	}
	subs, err := r.subscribe()
	for _, s := range subs {
		defer s.Unsubscribe()
	}
	if err != nil {
		return nil, err
	}
	assigning := time.Now()
	if err := r.assign(ctx); err != nil {
		r.abortAll("the run could not be assigned")
		return nil, err
	}
	at := time.Now().Add(leadFor(time.Since(assigning))).UTC()
	if err := r.start(ctx, at); err != nil {
		r.abortAll("the run could not be started")
		return nil, err
	}
	fmt.Fprintf(progress, "%d agents assigned; the run starts at %s\n", k, at.Format("15:04:05.000 UTC"))
	ended := r.follow(ctx, at, progress)
	res, err := r.merge(at, ended)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var lost []string
	for _, m := range r.order {
		if m.state == report.AgentLost {
			lost = append(lost, m.Name)
		}
	}
	if len(lost) > 0 && !c.cfg.AllowLoss {
		return res, &driver.AgentsLostError{Lost: lost}
	}
	return res, nil
}

// maxAnnounced bounds the agents a controller remembers while it waits.
const maxAnnounced = 10000

// discover waits for enough idle agents of this version and picks them in name order.
func (c *Controller) discover(ctx context.Context, progress io.Writer) ([]Hello, error) {
	var mu sync.Mutex
	idle := map[string]Hello{}
	other := map[string]Hello{} // of another version
	enough := make(chan struct{}, 1)
	sub, err := c.nc.Subscribe(SubjectHello, func(m *nats.Msg) {
		var h Hello
		if c.open(SubjectHello, m.Data, &h) != nil || h.ID == "" || len(h.ID) > 64 {
			return
		}
		h.Name, h.Host, h.Version = clip(h.Name, 64), clip(h.Host, 64), clip(h.Version, 32)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case len(idle)+len(other) >= maxAnnounced && idle[h.ID].ID == "" && other[h.ID].ID == "":
			// a flood of strangers' announcements: remember no more
		case h.compatible() != nil:
			other[h.ID] = h
		case h.Run == "":
			idle[h.ID] = h
		default:
			delete(idle, h.ID)
		}
		if len(idle) >= c.cfg.Agents {
			select {
			case enough <- struct{}{}:
			default:
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("subscribing to %s: %w", SubjectHello, err)
	}
	defer sub.Unsubscribe()
	fmt.Fprintf(progress, "waiting up to %v for %d agents on %s\n", c.cfg.Wait, c.cfg.Agents, c.nc.ConnectedUrlRedacted())
	timeout := time.NewTimer(c.cfg.Wait)
	defer timeout.Stop()
	select {
	case <-enough:
		// every agent announces itself each second: take one more round so that the agents
		// chosen are the same whichever announced first
		time.Sleep(HelloEvery + HelloEvery/4)
	case <-timeout.C:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	mu.Lock()
	defer mu.Unlock()
	hs := make([]Hello, 0, len(idle))
	for _, h := range idle {
		hs = append(hs, h)
	}
	if len(hs) < c.cfg.Agents {
		msg := fmt.Sprintf("only %d of %d agents joined within %v", len(hs), c.cfg.Agents, c.cfg.Wait)
		if len(other) > 0 {
			var vs []string
			for _, h := range other {
				vs = append(vs, h.Name+" ("+h.Version+")")
			}
			slices.Sort(vs)
			if len(vs) > 10 {
				vs = append(vs[:10], "…")
			}
			msg += fmt.Sprintf("; %d more of another version were not used: %s", len(other), strings.Join(vs, ", "))
		}
		// the wait was too short or the agents too few: the error names the wait
		return nil, &driver.UsageError{Err: &setting.Error{Field: "Wait", Err: errors.New(msg)}}
	}
	slices.SortFunc(hs, func(a, b Hello) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.ID, b.ID)) })
	return hs[:c.cfg.Agents], nil
}

// subscribe listens to the run's ticks and results and to the agents' heartbeats.
func (r *run) subscribe() ([]*nats.Subscription, error) {
	var subs []*nats.Subscription
	for subj, h := range map[string]nats.MsgHandler{
		runSubject(r.id, "tick"):   r.onTick,
		runSubject(r.id, "result"): r.onResult,
		SubjectHello:               r.onHello,
	} {
		s, err := r.c.nc.Subscribe(subj, h)
		if err != nil {
			return subs, fmt.Errorf("subscribing to %s: %w", subj, err)
		}
		subs = append(subs, s)
	}
	// the subscriptions must be on the server before any agent is told to publish
	return subs, r.c.nc.Flush()
}

// split is part i of n equal parts of total (sizes differ by at most one).
func split(total, i, n int) int { return total/n + btoi(i < total%n) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// agentSeed gives agent i its own seed from the run's, so the agents' random draws differ
// while one seed still reproduces all of them (splitmix64's finalizer).
func agentSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	if z == 0 {
		z = 1
	}
	return z
}

// share is agent i's part of the drive: the drive's configuration with this agent's part of the
// load and its own run id, seed and slice.
func (r *run) share(i int) Share {
	cfg, n := r.plan.Config(), len(r.order)
	s := cfg
	s.ScenarioData = r.plan.ScenarioData()
	s.RunID, s.Seed = cfg.RunID+"-"+strconv.Itoa(i), agentSeed(cfg.Seed, i)
	s.Slice = scenario.Slice{}
	if n > 1 {
		s.Slice.Index, s.Slice.Count = i, n
	}
	s.Users, s.Rate, s.MaxInFlight = 0, 0, 0
	if cfg.Rate > 0 {
		s.Rate = cfg.Rate / float64(n)
	} else {
		s.Users = split(cfg.Users, i, n)
	}
	if cfg.MaxInFlight > 0 {
		s.MaxInFlight = split(cfg.MaxInFlight, i, n)
	}
	return s
}

// request sends msg to every agent's verb subject at once and returns the first refusal.
func (r *run) request(ctx context.Context, verb string, msg func(m *member) any) error {
	errs := make([]error, len(r.order))
	var wg sync.WaitGroup
	for i, m := range r.order {
		wg.Go(func() {
			subj := agentSubject(m.ID, verb)
			errs[i] = r.ask(ctx, m, subj, r.c.seal(subj, msg(m)))
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ask sends one request, trying again while the broker reconnects, and turns a refusal into a
// usage error (the agent found the drive bad: exit 2) naming the agent.
func (r *run) ask(ctx context.Context, m *member, subj string, data []byte) error {
	var err error
	for try := 0; try < 3; try++ {
		var rep Reply
		rctx, cancel := context.WithTimeout(ctx, requestTimeout)
		err = r.c.request(rctx, r.c.nc, subj, data, &rep)
		cancel()
		if err == nil {
			if !rep.OK {
				return &driver.UsageError{Err: fmt.Errorf("agent %s: %s", m.Name, clip(rep.Error, 2000))}
			}
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fmt.Errorf("agent %s did not answer: %v", m.Name, err)
}

func (r *run) assign(ctx context.Context) error {
	err := r.request(ctx, "assign", func(m *member) any {
		return Assign{Header: header(), Run: r.id, Index: m.index, Count: len(r.order), Share: r.share(m.index)}
	})
	return firstUsage(err)
}

// firstUsage prefers a usage error among joined errors, so a refused scenario exits 2.
func firstUsage(err error) error {
	var ue *driver.UsageError
	if errors.As(err, &ue) {
		return ue
	}
	return err
}

// leadFor is the start lead after an assignment that took assigned: startLead, or
// leadPerAssign round trips of a broker (or agents) that slow, so the start reaches every agent
// before its instant on a loaded machine too.
func leadFor(assigned time.Duration) time.Duration {
	return max(startLead, leadPerAssign*assigned)
}

func (r *run) start(ctx context.Context, at time.Time) error {
	err := r.request(ctx, "start", func(*member) any { return Start{Header: header(), Run: r.id, At: at} })
	if err != nil {
		return firstUsage(err)
	}
	if time.Now().After(at) {
		return fmt.Errorf("the agents confirmed the start only after its instant (%v late): the broker is too slow", time.Since(at).Round(time.Millisecond))
	}
	return nil
}

func (r *run) abortAll(reason string) {
	for _, m := range r.order {
		subj := agentSubject(m.ID, "abort")
		_ = r.c.nc.Publish(subj, r.c.seal(subj, Abort{Header: header(), Run: r.id, Reason: reason}))
	}
	_ = r.c.nc.FlushTimeout(time.Second)
}

// member returns the run's agent id, or nil (and counts the message ignored).
func (r *run) member(run, agent string) *member {
	m := r.agents[agent]
	if run != r.id || m == nil {
		r.ignored++
		return nil
	}
	return m
}

func (r *run) onHello(msg *nats.Msg) {
	var h Hello
	if r.c.open(SubjectHello, msg.Data, &h) != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if m := r.agents[h.ID]; m != nil && (h.Run == r.id || m.state == report.AgentDone) {
		m.lastSeen = time.Now()
	}
}

func (r *run) onTick(msg *nats.Msg) {
	var t Tick
	if r.c.open(msg.Subject, msg.Data, &t) != nil || t.compatible() != nil || t.Second < 0 || t.Second > r.seconds {
		return
	}
	var h *hdr.Histogram
	if t.Hist != "" {
		var err error
		if h, err = hdr.Decode([]byte(t.Hist)); err != nil {
			return
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.member(t.Run, t.Agent)
	if m == nil || m.state == report.AgentLost || m.ticked[t.Second] {
		return // a second counts once: an agent sends one tick a second
	}
	m.ticked[t.Second] = true
	m.lastSeen = time.Now()
	s := r.series[t.Second]
	if s == nil {
		s = &second{phase: t.Phase, hist: recorder.NewSeriesHistogram()}
		r.series[t.Second] = s
	}
	s.pass += t.Pass
	s.errors += t.Errors
	s.hits += t.Hits
	s.users += t.Users
	s.agents++
	if h != nil {
		s.hist.Merge(h)
	}
	if t.Phase == "steady" {
		m.pass += t.Pass
		m.errors += t.Errors
		if h != nil {
			m.hist.Merge(h)
		}
	}
}

func (r *run) onResult(msg *nats.Msg) {
	var res Result
	if err := r.c.open(msg.Subject, msg.Data, &res); err != nil {
		return // not from an agent of the fleet: no answer either
	}
	rep := Reply{Header: header(), OK: true}
	defer func() { _ = msg.Respond(r.c.seal(replySubject(msg.Reply), rep)) }()
	if err := res.compatible(); err != nil {
		rep.OK, rep.Error = false, err.Error()
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.member(res.Run, res.Agent)
	if m == nil || m.state != "" {
		return // another run's, or already counted (a retried delivery), or lost: acknowledged and dropped
	}
	m.lastSeen = time.Now()
	if res.Results == nil {
		m.state, m.why = report.AgentLost, "its run failed: "+clip(res.Error, 300)
		return
	}
	m.state, m.results = report.AgentDone, res.Results
	if res.Error != "" {
		m.results.Notes = append(m.results.Notes, "the agent's run ended early: "+clip(res.Error, 300))
	}
}

// follow watches the run until every agent is done or lost, printing the fleet's progress, and
// returns when the run ended.
func (r *run) follow(ctx context.Context, at time.Time, w io.Writer) time.Time {
	lc := r.plan.Load()
	end := at.Add(lc.RampUp + lc.Steady + lc.RampDown)
	deadline := end.Add(resultGrace)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	watched := 0
	connected := true
	aborted := false
	running := len(r.order)
	var alive time.Time
	for {
		select {
		case <-ctx.Done():
			if !aborted {
				r.abortAll("the controller was interrupted")
				aborted = true
				deadline = time.Now().Add(10 * time.Second)
			}
		case <-t.C:
		}
		now := time.Now()
		if now.Sub(alive) >= HelloEvery {
			r.alive()
			alive = now
		}
		r.mu.Lock()
		if !r.c.nc.IsConnected() {
			connected = false
		} else if !connected {
			// the controller itself was cut off: nobody was heard, nobody is to blame
			connected = true
			for _, m := range r.agents {
				m.lastSeen = now
			}
		}
		running = 0
		for _, m := range r.order {
			if m.state != "" {
				continue
			}
			switch {
			case connected && now.Sub(m.lastSeen) > LostAfter:
				m.state, m.why = report.AgentLost, fmt.Sprintf("silent for %v from %.0f s into the run", LostAfter, m.lastSeen.Sub(at).Seconds())
			case now.After(deadline):
				m.state, m.why = report.AgentLost, fmt.Sprintf("no final results within %v of the run's end", resultGrace)
			default:
				running++
			}
			if m.state == report.AgentLost {
				fmt.Fprintf(w, "\nagent %s lost: %s\n", m.Name, m.why)
			}
		}
		if len(lc.Watchers) > 0 {
			status := fmt.Sprintf("agents %d/%d", running, len(r.order))
			watched = r.watch(lc.Watchers, status, watched, now, at, running == 0)
		}
		r.mu.Unlock()
		if running == 0 {
			load.End(lc.Watchers)
			if now.After(end) {
				return end
			}
			return now
		}
	}
}

// alive tells the run's agents the controller is still there: an agent that stops hearing it
// for LostAfter stops its share (controllerGone).
func (r *run) alive() {
	subj := runSubject(r.id, "alive")
	_ = r.c.nc.Publish(subj, r.c.seal(subj, Alive{Header: header(), Run: r.id}))
}

// watch gives the watchers (the progress line, the controller's live metrics and dashboard, the
// caller's own) every second after
// watched, in order, once it is whole — every agent still in the run has reported it, or it
// closed two seconds ago (a lost agent's never comes) — and, at the end, every second left. It
// returns the last second given. Each second is given once: a tick later than that is in the
// results' series, not in the live view. The fleet's seconds carry totals, not transactions.
// Called under r.mu.
func (r *run) watch(ws []load.Watcher, status string, watched int, now, at time.Time, final bool) int {
	last := 0
	for sec := range r.series {
		last = max(last, sec)
	}
	alive := 0
	for _, m := range r.order {
		if m.state != report.AgentLost {
			alive++
		}
	}
	for n := watched + 1; n <= last; n++ {
		s := r.series[n]
		if s == nil {
			if !final && now.Before(at.Add(time.Duration(n+2)*time.Second)) {
				return n - 1
			}
			continue
		}
		if !final && s.agents < alive && now.Before(at.Add(time.Duration(n+2)*time.Second)) {
			return n - 1
		}
		sec := &load.Second{Point: s.point(n), Hist: s.hist, Status: status}
		for _, w := range ws {
			w.Second(sec)
		}
		watched = n
	}
	return max(watched, last)
}

// merge turns the agents' final results and the streamed seconds into the run's results.
func (r *run) merge(at, ended time.Time) (*report.Results, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var parts []*report.Results
	for _, m := range r.order {
		if m.results != nil {
			for i, n := range m.results.Notes {
				m.results.Notes[i] = "agent " + m.Name + ": " + n
			}
			parts = append(parts, m.results)
		}
	}
	lc := r.plan.Load()
	res, err := Merge(parts, lc.Steady.Seconds())
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		res.StartedAt, res.EndedAt = at, ended.UTC()
		res.Notes = append(res.Notes, "no agent delivered results")
	}
	lc.Describe(res)
	res.System = nil // each agent measured on its own machine: see agents
	res.Series = r.seriesPoints()
	for _, m := range r.order {
		a := report.AgentResult{Name: m.Name, Host: m.Host, State: m.state}
		if m.results != nil {
			a.Requests, a.Errors, a.P99Ms = m.results.Total.Count, m.results.Total.Errors, m.results.Total.P99Ms
			if d := m.results.Driver; d != nil {
				u := d.Utilisation // each agent's own driver, for the run rules
				a.DriverCPU = &u
			}
			a.Machine = m.results.Machine // each agent judges its own machine
		} else {
			a.Requests, a.Errors = m.pass+m.errors, m.errors
			if m.hist.TotalCount() > 0 {
				a.P99Ms = float64(m.hist.ValueAtQuantile(99)) / 1000
			}
			res.Notes = append(res.Notes, fmt.Sprintf("agent %s (%s) was lost (%s): its measurements are not in the merged results; its line in agents shows what its per-second reports said", m.Name, m.Host, m.why))
		}
		res.Agents = append(res.Agents, a)
	}
	res.Notes = append(res.Notes, fmt.Sprintf("distributed run: %d agents, merged exactly (histograms added bucket by bucket)", len(r.order)))
	return res, nil
}

func (r *run) seriesPoints() []report.SeriesPoint {
	secs := make([]int, 0, len(r.series))
	for s := range r.series {
		secs = append(secs, s)
	}
	slices.Sort(secs)
	out := make([]report.SeriesPoint, 0, len(secs))
	for _, sec := range secs {
		out = append(out, r.series[sec].point(sec))
	}
	return out
}

func (s *second) point(sec int) report.SeriesPoint {
	return recorder.Point(sec, s.phase, s.pass, s.errors, s.hits, s.users, s.hist)
}
