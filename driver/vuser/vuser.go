// Package vuser executes a compiled scenario over HTTP as a load.Workload: each virtual user
// walks the scenario's steps with its own connection, cookies and variables, records every HTTP
// request as a hit (redirects included) and every transaction through the load engine.
//
// By default (the 2007 paper's method) a user starts each iteration as a new visitor: a fresh
// connection and an empty cookie jar. KeepConnections keeps both across iterations instead.
package vuser

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tradebench/tradebench/driver/load"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/dsn"
	"github.com/tradebench/tradebench/internal/httpc"
)

// MaxRedirects is how many redirects one request follows before it fails. Which redirects are
// followed at all is the HTTP options' Redirects policy (same origin only by default).
const MaxRedirects = 10

// Config configures a workload.
type Config struct {
	// Target is the base URL that scenario paths (/…) are relative to, e.g. http://host:8080.
	Target   string
	Scenario *scenario.Scenario
	HTTP     httpc.Options
	// KeepConnections keeps a user's connection and cookies from one iteration to the next.
	KeepConnections bool
	// Open is the open model: an iteration is one arrival and ends without a trailing think.
	Open bool
	// Seed seeds every user's random stream (scenario.Draws): with the same seed a user makes
	// the same random choices. 0 picks a seed at random (Workload.Seed tells which).
	Seed uint64
}

// Workload is a scenario ready to run under load.Run.
type Workload struct {
	cfg    Config
	sc     *scenario.Scenario
	target httpc.Endpoint
	base   *url.URL
	opt    *httpc.Options
	// keyPrefix begins the Idempotency-Key of every state-changing request (idempotencyKey).
	keyPrefix string
	// incarnations numbers every user the workload makes, across all its runs: a capacity
	// search runs one workload step after step, each step's users numbered from 0 again, so
	// a key made of the user's id would repeat in the next step (and the server answer the
	// repeat with the first request's outcome, placing nothing, or 409).
	incarnations atomic.Uint64
}

// New checks the target and returns the workload.
func New(cfg Config) (*Workload, error) {
	if cfg.Scenario == nil {
		return nil, errors.New("vuser: no scenario")
	}
	for cfg.Seed == 0 {
		cfg.Seed = rand.Uint64()
	}
	w := &Workload{cfg: cfg, sc: cfg.Scenario, opt: &cfg.HTTP, keyPrefix: newKeyPrefix()}
	w.opt = &w.cfg.HTTP
	if cfg.Target != "" {
		u, err := url.Parse(strings.TrimRight(cfg.Target, "/"))
		if err != nil {
			return nil, fmt.Errorf("target %q: %v", dsn.Redact(cfg.Target), err)
		}
		if u.Path != "" || u.RawQuery != "" {
			return nil, fmt.Errorf("target %q: give only scheme://host[:port]; the scenario supplies the paths", dsn.Redact(cfg.Target))
		}
		ep, err := httpc.ParseEndpoint(u)
		if err != nil {
			return nil, fmt.Errorf("target: %w", err)
		}
		w.target, w.base = ep, u
	}
	return w, nil
}

// Seed is the seed of the users' random streams.
func (w *Workload) Seed() uint64 { return w.cfg.Seed }

// NewUser implements load.Workload. The user's client is made on its first request.
func (w *Workload) NewUser(id int) load.User {
	return &user{w: w, id: id, keyID: w.incarnations.Add(1)}
}

// user is one virtual user: kept small, because there may be tens of thousands.
type user struct {
	w       *Workload
	id      int
	iter    int64
	c       *httpc.Client
	d       *scenario.Draws // random stream and unique values; made on the first iteration
	vars    []string
	pending bool // a think time is due before the next transaction
	next    scenario.Think
	// probe: stop after the first transaction, keeping its name and outcome (Probe)
	probe     bool
	probeName string
	probeErr  error
	keys      uint64 // the user's state-changing requests so far (idempotencyKey)
	keyID     uint64 // this user's number among all the workload's users (incarnations)
}

// Probe runs the scenario as a new virtual user up to its first transaction (a request, or
// requests timed as one) and returns that transaction's name and outcome: the preflight that
// tells a dead or wrong target before any load. No think time is taken.
func (w *Workload) Probe(ctx context.Context) (name string, err error) {
	u := &user{w: w, id: 0, probe: true, keyID: w.incarnations.Add(1)}
	defer func() {
		if u.c != nil {
			u.c.CloseConn()
		}
	}()
	if err := u.Iterate(ctx, load.ProbeIteration()); err != nil {
		return u.probeName, err
	}
	if u.probeName == "" {
		return "", errors.New("the scenario made no request")
	}
	return u.probeName, u.probeErr
}

// probed ends a probe's iteration after its first transaction.
func (u *user) probed(name string, err error) bool {
	if !u.probe {
		return false
	}
	u.probeName, u.probeErr = name, err
	return true
}

func (u *user) Var(slot int) string { return u.vars[slot] }
func (u *user) UserID() int         { return u.id }
func (u *user) IterNum() int64      { return u.iter }

func (u *user) Draws() *scenario.Draws { return u.d }

// Control flow through the steps, as errors.
var (
	errStop   = errors.New("stop")   // a stop step: the iteration ends normally
	errFailed = errors.New("failed") // a transaction failed (already recorded): the iteration ends
)

// Iterate implements load.User: one pass over the scenario.
func (u *user) Iterate(ctx context.Context, it *load.Iteration) error {
	u.iter = it.Number()
	if u.c == nil {
		u.c = httpc.NewClient(u.w.opt)
		u.d = u.w.sc.NewDraws(u.w.cfg.Seed, u.id)
	}
	if u.vars == nil && len(u.w.sc.Vars) > 0 {
		u.vars = make([]string, len(u.w.sc.Vars))
	}
	u.pending = false
	err := u.steps(ctx, it, u.w.sc.Steps)
	u.d.Release() // the iteration's unique values are free for other users again
	u.c.ReleaseBody()
	if !u.w.cfg.KeepConnections {
		// a new visitor next time: no connection, no cookies, no variables
		u.c.CloseConn()
		u.c.Jar.Reset()
		clear(u.vars)
	}
	if err != nil && ctx.Err() != nil {
		return nil // the run ended; the engine counts the cut-off transaction as stopped
	}
	if err != nil && err != errStop && err != errFailed && isExhausted(err) {
		return err // the engine records the iteration as failed
	}
	// the think after the last transaction paces the closed model's next iteration
	if u.pending && !u.w.cfg.Open {
		u.pending = false
		it.Think(ctx, u.next.Sample(u.d.R))
	}
	return nil
}

// isExhausted reports a unique draw that found no free value. Its own function, so the target
// errors.As needs escapes only on this rare path, not on every iteration.
func isExhausted(err error) bool {
	var exhausted *scenario.ExhaustedError
	return errors.As(err, &exhausted)
}

func (u *user) think(ctx context.Context, it *load.Iteration) error {
	if !u.pending {
		return nil
	}
	u.pending = false
	return it.Think(ctx, u.next.Sample(u.d.R))
}

// steps runs a list of steps. It returns nil when the list is done (or an extraction's else
// branch replaced the rest), errStop / errFailed / a context error to end the iteration.
func (u *user) steps(ctx context.Context, it *load.Iteration, steps []*scenario.Step) error {
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		switch st.Kind {
		case scenario.StepRequest:
			elseSteps, err := u.requestStep(ctx, it, st.Request)
			if err != nil {
				return err
			}
			if elseSteps != nil {
				return u.steps(ctx, it, elseSteps) // instead of the rest of this list
			}
		case scenario.StepTransaction:
			if err := u.transaction(ctx, it, st); err != nil {
				return err
			}
		case scenario.StepSet:
			if err := u.set(st.Sets); err != nil {
				return err
			}
		case scenario.StepThink:
			u.pending = false
			if u.probe {
				continue
			}
			if err := it.Think(ctx, st.Think.Sample(u.d.R)); err != nil {
				return err
			}
		case scenario.StepChoice:
			n := u.d.R.IntN(st.TotalWeight)
			for i := range st.Branches {
				b := &st.Branches[i]
				if n < b.Weight {
					if err := u.steps(ctx, it, b.Steps); err != nil {
						return err
					}
					break
				}
				n -= b.Weight
			}
		case scenario.StepRepeat:
			n := st.Min
			if st.Max > st.Min {
				n += u.d.R.IntN(st.Max - st.Min + 1)
			}
			for k := 0; k < n; k++ {
				if err := u.steps(ctx, it, st.Steps); err != nil {
					return err
				}
			}
		case scenario.StepStop:
			return errStop
		}
	}
	return nil
}

// requestStep runs a request as its own transaction, after the pending think. It returns an
// extraction's else steps when one found nothing, and errStop or errFailed to end the iteration.
func (u *user) requestStep(ctx context.Context, it *load.Iteration, req *scenario.Request) ([]*scenario.Step, error) {
	if err := u.think(ctx, it); err != nil {
		return nil, err
	}
	start := it.StartTx()
	elseSteps, err := u.request(ctx, it, req, start)
	it.Done(req.Name, start, err)
	if u.probed(req.Name, err) {
		return nil, errStop
	}
	// a failed transaction is followed by the same think, so a failing system is not
	// hammered faster than a working one
	u.pending, u.next = true, u.w.sc.Think
	if req.Think != nil {
		u.next = *req.Think
	}
	if err != nil {
		return nil, errFailed
	}
	return elseSteps, nil
}

// transaction runs several requests (and sets) timed as one transaction, after the pending
// think; the first request's start is the transaction's. The first failure ends it.
func (u *user) transaction(ctx context.Context, it *load.Iteration, st *scenario.Step) error {
	if err := u.think(ctx, it); err != nil {
		return err
	}
	start := it.StartTx()
	var err error
	first := start
	for _, sub := range st.Steps {
		if sub.Kind == scenario.StepSet {
			if err = u.set(sub.Sets); err != nil {
				break
			}
			continue
		}
		if _, err = u.request(ctx, it, sub.Request, first); err != nil {
			break
		}
		first = time.Time{}
	}
	it.Done(st.Name, start, err)
	if u.probed(st.Name, err) {
		return errStop
	}
	u.pending, u.next = true, u.w.sc.Think
	if err != nil {
		return errFailed
	}
	return nil
}

// set assigns variables; it fails only when a unique draw finds no free value.
func (u *user) set(sets []scenario.Set) error {
	for i := range sets {
		s := &sets[i]
		if !s.IsRepeated {
			u.vars[s.Slot] = s.Value.String(u)
			if s.Unique {
				if err := u.d.Err(); err != nil {
					return err
				}
			}
			continue
		}
		n := s.Min
		if s.Max > s.Min {
			n += u.d.R.IntN(s.Max - s.Min + 1)
		}
		var b []byte
		for k := 0; k < n; k++ {
			if k > 0 {
				b = append(b, s.Join...)
			}
			b = s.Value.Append(b, u)
		}
		u.vars[s.Slot] = string(b)
	}
	return nil
}
