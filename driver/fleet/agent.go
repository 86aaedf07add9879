package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/live"
	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/internal/metrics"
	"github.com/tradebench/tradebench/internal/setting"
)

// AgentConfig configures an agent process.
type AgentConfig struct {
	// Name names the agent in results ("" = host-pid).
	Name string
	// Log receives the agent's events (nil = nowhere).
	Log *slog.Logger
	// Secret is the fleet secret (the NATS token: natsx.ResolveToken): the agent obeys and
	// answers only messages sealed with it, and seals its own. Required.
	Secret string
	// MetricsListen, if set (host:port), serves this agent's own live metrics at
	// http://MetricsListen/metrics for as long as it serves: each run's seconds, as its share
	// measures them (package live). The address is the access control.
	MetricsListen string
}

// Agent is a long-running load agent: it announces itself on NATS, prepares the shares
// controllers assign it, runs one at a time and reports every second and at the end.
type Agent struct {
	nc    *nats.Conn
	hello Hello
	log   *slog.Logger

	mu      sync.Mutex
	sub     *nats.Subscription // the agent's subjects, from Listen
	run     string             // assigned or running ("" = idle)
	plan    *driver.Plan       // the assigned share, prepared
	cancel  context.CancelFunc // stops the running share
	started bool
	expire  *time.Timer    // drops an assignment no start follows
	running sync.WaitGroup // the share being run, until its results are delivered
	seen    []string       // the runs it was assigned, latest last (maxSeen): never assigned again
	sealer

	metricsListen string
	live          *live.Metrics // nil without MetricsListen
}

// maxSeen bounds the run ids an agent remembers to refuse a replayed Assign.
const maxSeen = 1000

// NewAgent makes an agent on a NATS connection (see Connect).
func NewAgent(nc *nats.Conn, cfg AgentConfig) *Agent {
	host, _ := os.Hostname()
	if cfg.Name == "" {
		cfg.Name = host + "-" + strconv.Itoa(os.Getpid())
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Agent{nc: nc, log: cfg.Log, metricsListen: cfg.MetricsListen, sealer: sealer{key: []byte(cfg.Secret)},
		hello: Hello{Header: header(), ID: nuid.Next(), Name: cfg.Name, Host: host, Cores: runtime.NumCPU()}}
}

// ID is the agent's unique id.
func (a *Agent) ID() string { return a.hello.ID }

// Listen subscribes the agent to its subjects and waits until the broker has the subscription,
// so a controller's request sent after Listen returns finds the agent (not "no responders"), as
// net.Listen before http.Serve lets a client connect before the server's loop runs. Serve
// calls it when it has not been called.
func (a *Agent) Listen() error {
	if len(a.key) == 0 {
		return errors.New("agent: AgentConfig.Secret is empty: the fleet's messages must be sealed")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sub != nil {
		return nil
	}
	sub, err := a.nc.Subscribe(agentSubject(a.hello.ID, "*"), a.handle)
	if err == nil {
		err = a.nc.Flush()
	}
	if err != nil {
		if sub != nil {
			_ = sub.Unsubscribe()
		}
		return fmt.Errorf("agent: subscribing: %w", err)
	}
	a.sub = sub
	return nil
}

// Serve announces the agent and answers controllers until ctx ends.
func (a *Agent) Serve(ctx context.Context) error {
	if a.metricsListen != "" {
		a.live = live.New(nil)
		ep, err := metrics.Listen(ctx, a.metricsListen, a.live.Registry(), a.log)
		if err != nil {
			return setting.Errorf("MetricsListen", "%v", err)
		}
		defer ep.Close()
		a.log.Info("live metrics", "url", ep.URL())
	}
	if err := a.Listen(); err != nil {
		return err
	}
	defer func() {
		a.mu.Lock()
		_ = a.sub.Unsubscribe()
		a.sub = nil
		a.mu.Unlock()
	}()
	a.log.Info("agent ready", "name", a.hello.Name, "id", a.hello.ID, "nats", a.nc.ConnectedUrlRedacted())
	t := time.NewTicker(HelloEvery)
	defer t.Stop()
	for {
		a.announce()
		select {
		case <-ctx.Done():
			// a share being run stops and reports what it measured before the agent exits
			a.abort("the agent is stopping")
			a.stopping(t.C)
			return nil
		case <-t.C:
		}
	}
}

// stopping waits for the share being run to end and its results to be delivered, announcing
// the agent at every tick meanwhile: on a loaded machine the winding down and the delivery took
// longer than LostAfter (6.4 s under CI's race pass at a load of 43), and a silent agent is
// counted lost, its results dropped from the merge.
func (a *Agent) stopping(tick <-chan time.Time) {
	done := make(chan struct{})
	go func() { a.running.Wait(); close(done) }()
	for {
		select {
		case <-done:
			return
		case <-tick:
			a.announce()
		}
	}
}

func (a *Agent) announce() {
	a.mu.Lock()
	h := a.hello
	h.Run = a.run
	a.mu.Unlock()
	_ = a.nc.Publish(SubjectHello, a.seal(SubjectHello, h)) // buffered across reconnects
}

// handle answers one message on the agent's subjects.
func (a *Agent) handle(m *nats.Msg) {
	verb := m.Subject[len(agentSubject(a.hello.ID, "")):]
	var err error
	switch verb {
	case "assign":
		var as Assign
		if err = a.decode(m, &as.Header, &as); err == nil {
			err = a.assign(as)
		}
	case "start":
		var st Start
		if err = a.decode(m, &st.Header, &st); err == nil {
			err = a.start(st)
		}
	case "abort":
		var ab Abort
		if a.decode(m, &ab.Header, &ab) == nil {
			a.abortRun(ab.Run, ab.Reason)
		}
		return
	default:
		return
	}
	if errors.Is(err, errUnsealed) {
		return // not from a controller of the fleet: no answer, nothing done
	}
	r := Reply{Header: header(), OK: err == nil}
	if err != nil {
		r.Error = err.Error()
		a.log.Warn("refused", "verb", verb, "err", clip(err.Error(), 500))
	}
	if m.Reply != "" {
		_ = m.Respond(a.seal(replySubject(m.Reply), r))
	}
}

// decode opens a sealed message and refuses one of another version.
func (a *Agent) decode(m *nats.Msg, h *Header, v any) error {
	if err := a.open(m.Subject, m.Data, v); err != nil {
		return err
	}
	return h.compatible()
}

// assign prepares a share: everything a run needs that can fail (the scenario, its parameters,
// the share's limits) fails here, before any load.
func (a *Agent) assign(as Assign) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.run != "" && a.run != as.Run {
		return fmt.Errorf("agent %s is busy with run %s", a.hello.Name, a.run)
	}
	if a.started {
		return fmt.Errorf("agent %s is already running run %s", a.hello.Name, a.run)
	}
	if a.run == "" && slices.Contains(a.seen, as.Run) {
		return fmt.Errorf("agent %s was assigned run %s before: a run is assigned once", a.hello.Name, clip(as.Run, 64))
	}
	s := as.Share
	cfg := s // the fields that travelled; the local ones are zero (json:"-")
	if cfg.URL != "" {
		cfg.Scenario, cfg.ScenarioData = "", nil
	}
	cfg.SetDefaults()
	plan, err := driver.NewPlan(cfg)
	if err != nil {
		return err
	}
	if a.expire != nil {
		a.expire.Stop()
	}
	a.run, a.plan = as.Run, plan
	if !slices.Contains(a.seen, as.Run) {
		if len(a.seen) == maxSeen {
			a.seen = a.seen[1:]
		}
		a.seen = append(a.seen, as.Run)
	}
	run := as.Run
	a.expire = time.AfterFunc(assignTTL, func() { a.abortRun(run, "no start within "+assignTTL.String()) })
	a.log.Info("assigned", "run", as.Run, "index", as.Index, "of", as.Count, "users", s.Users, "rate", s.Rate)
	return nil
}

// start runs the assigned share at st.At, in the background.
func (a *Agent) start(st Start) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.run == "" || a.run != st.Run {
		return fmt.Errorf("agent %s has no assignment for run %s", a.hello.Name, st.Run)
	}
	if a.started {
		return nil // a repeated start (the reply was lost): already running
	}
	a.expire.Stop()
	ctx, cancelCause := context.WithCancelCause(context.Background())
	cancel := func() { cancelCause(nil) }
	if err := a.watchController(ctx, st.Run, func() { cancelCause(errControllerGone) }); err != nil {
		cancel()
		return err
	}
	a.started, a.cancel = true, cancel
	a.running.Add(1)
	go func() { defer a.running.Done(); a.execute(ctx, st.Run, a.plan, st.At) }()
	return nil
}

// errControllerGone ends a run whose controller stopped sending its heartbeat.
var errControllerGone = errors.New("the controller is gone")

// watchController follows the controller's heartbeat (Alive) for run until ctx ends, and
// calls stop when none came for LostAfter: a controller that exited or was cut off cannot
// collect the results, and an agent sending load for nobody would be anyone's to take over.
// The agent then goes idle and waits for a new, sealed assignment.
func (a *Agent) watchController(ctx context.Context, run string, stop func()) error {
	var mu sync.Mutex
	last := time.Now()
	subj := runSubject(run, "alive")
	sub, err := a.nc.Subscribe(subj, func(m *nats.Msg) {
		var al Alive
		if a.open(subj, m.Data, &al) == nil && al.Run == run {
			mu.Lock()
			last = time.Now()
			mu.Unlock()
		}
	})
	if err != nil {
		return fmt.Errorf("agent: subscribing to %s: %w", subj, err)
	}
	go func() {
		defer sub.Unsubscribe()
		t := time.NewTicker(LostAfter / 10)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			mu.Lock()
			if !a.nc.IsConnected() {
				last = time.Now() // cut off itself: the controller gets LostAfter once it is back
			}
			silent := time.Since(last)
			mu.Unlock()
			if silent > LostAfter {
				a.log.Warn("controller gone: stopping the run", "run", run, "silent", silent.Round(time.Millisecond))
				stop()
				return
			}
		}
	}()
	return nil
}

func (a *Agent) execute(ctx context.Context, run string, plan *driver.Plan, at time.Time) {
	a.log.Info("starting", "run", run, "at", at.Format(time.RFC3339Nano))
	sent := a.nc.Stats().OutBytes
	tick := runSubject(run, "tick")
	watchers := []load.Watcher{load.WatcherFunc(func(s *load.Second) {
		p, h := s.Point, s.Hist
		t := Tick{Header: header(), Run: run, Agent: a.hello.ID, Second: p.Second, Phase: p.Phase,
			Pass: int64(p.TPS), Errors: p.Errors, Hits: p.Hits, Users: p.Users}
		if h.TotalCount() > 0 {
			if enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase); err == nil {
				t.Hist = string(enc)
			}
		}
		_ = a.nc.Publish(tick, a.seal(tick, t))
	})}
	if a.live != nil {
		watchers = append(watchers, load.WithTx(a.live))
	}
	res, err := plan.Run(ctx, at, watchers...)
	// what the metric stream cost: every byte this connection published during the run (the
	// ticks, and the heartbeats, which an idle agent sends too), per second of the run
	streamed, secs := a.nc.Stats().OutBytes-sent, time.Since(at).Seconds()
	out := Result{Header: header(), Run: run, Agent: a.hello.ID, Results: res}
	if res != nil {
		res.Series = nil // the controller has it from the ticks
	}
	if err != nil {
		out.Error = err.Error()
	}
	if a.live != nil {
		a.live.Done(res)
	}
	if errors.Is(context.Cause(ctx), errControllerGone) {
		a.log.Warn("results not delivered: the controller is gone", "run", run)
	} else {
		a.deliver(out)
	}
	a.mu.Lock()
	if a.run == run {
		a.cancel()
		a.run, a.plan, a.cancel, a.started = "", nil, nil, false
	}
	a.mu.Unlock()
	a.log.Info("finished", "run", run, "err", err, "stream_bytes", streamed, "stream_bytes_per_sec", int(float64(streamed)/max(secs, 1)))
}

// deliver sends the final results until the controller acknowledges them or the grace ends: a
// NATS restart at the end of a run must not lose them.
func (a *Agent) deliver(r Result) {
	subj := runSubject(r.Run, "result")
	data := a.seal(subj, r)
	deadline := time.Now().Add(resultGrace)
	for {
		var rep Reply
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		err := a.request(ctx, a.nc, subj, data, &rep)
		cancel()
		if err == nil && rep.compatible() == nil && rep.OK {
			a.log.Info("results delivered", "run", r.Run, "bytes", len(data))
			return
		}
		if time.Now().After(deadline) {
			a.log.Warn("results not delivered", "run", r.Run, "err", err)
			return
		}
		if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrConnectionClosed) || err == nil {
			time.Sleep(250 * time.Millisecond)
		}
	}
}

// abortRun stops run if it is this agent's; messages about other runs are ignored.
func (a *Agent) abortRun(run, reason string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if run == "" || a.run != run {
		return
	}
	a.log.Info("abort", "run", run, "reason", clip(reason, 200))
	if a.started {
		a.cancel() // execute reports what was measured and goes idle
		return
	}
	if a.expire != nil {
		a.expire.Stop()
	}
	a.run, a.plan = "", nil
}

func (a *Agent) abort(reason string) {
	a.mu.Lock()
	run := a.run
	a.mu.Unlock()
	a.abortRun(run, reason)
}
