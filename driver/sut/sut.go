// Package sut watches the resources of the system under test while a run drives it: CPU and
// resident memory of each server process, one point a second, into the results' sut section
// (report.SUT). Two kinds of source: a process on this machine, read from /proc (what `run`
// uses for the servers it starts), and a server anywhere, read from its Prometheus endpoint's
// standard process metrics (process_cpu_seconds_total, process_resident_memory_bytes; what
// `drive --sut-metrics` uses, for every tier of a split deployment at once).
//
// It is part of the instrument: it imports no system under test and knows only /proc and the
// Prometheus exposition format, so it watches any server, tradebench's or another's.
package sut

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/tradebench/tradebench/report"
)

// Interval is how often the sources are sampled.
const Interval = time.Second

// Sample is one reading of a process's counters.
type Sample struct {
	CPUSeconds float64 // CPU time used since the process started (user + system)
	RSSBytes   int64   // resident memory now
	PeakRSS    int64   // the process's peak resident memory so far, if the source knows it (else 0)
}

// Source reads one process's resources.
type Source interface {
	Name() string   // e.g. "monolith", "web-1"
	PID() int       // 0 when the process is on another machine
	Origin() string // report.SUTProcess.Source: "proc" or the scraped URL
	Read(ctx context.Context) (Sample, error)
}

// Found is how a source's process was found: by its port or its connections (Proc.Listen,
// Proc.From, Proc.Role; Followed), and false for a process the run started or was told of, and
// for a scraped server.
func Found(s Source) (Listener, bool) {
	switch p := s.(type) {
	case *Proc:
		if p.Listen != "" {
			return Listener{PID: p.Pid, Name: p.ProcName, Addr: p.Listen, From: p.From, Role: p.Role}, true
		}
	case *Followed:
		return p.listener()
	}
	return Listener{}, false
}

// Monitor samples its sources every Interval from Start until Stop.
type Monitor struct {
	sources []Source
	start   time.Time
	cancel  context.CancelFunc
	done    chan struct{}

	mu    sync.Mutex
	procs []*tracked
}

// tracked is what the monitor knows of one source so far.
type tracked struct {
	src       Source
	first     Sample
	haveFirst bool
	last      Sample
	lastT     time.Time
	peak      int64
	series    []report.ResourcePoint
	err       error // the last read's error, while no read succeeded
	errs      int
}

// Start takes a first sample of every source (the baseline the run's CPU time is counted
// from) and samples every Interval until Stop. start is the run's start, the origin of the
// series' t. A source that cannot be read at all is reported by Stop, not here: a server that
// is still starting may answer a second later.
func Start(ctx context.Context, start time.Time, sources ...Source) *Monitor {
	ctx, cancel := context.WithCancel(ctx)
	m := &Monitor{sources: sources, start: start, cancel: cancel, done: make(chan struct{})}
	for _, s := range sources {
		m.procs = append(m.procs, &tracked{src: s})
	}
	m.sample(ctx, time.Now())
	go func() {
		defer close(m.done)
		t := time.NewTicker(Interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				m.sample(ctx, now)
			}
		}
	}()
	return m
}

// sample reads every source once (in parallel: a slow scrape must not delay the others).
func (m *Monitor) sample(ctx context.Context, now time.Time) {
	rctx, cancel := context.WithTimeout(ctx, Interval)
	defer cancel()
	var wg sync.WaitGroup
	for _, p := range m.procs {
		wg.Go(func() {
			s, err := p.src.Read(rctx)
			m.mu.Lock()
			defer m.mu.Unlock()
			p.record(now.Sub(m.start).Seconds(), now, s, err)
		})
	}
	wg.Wait()
}

func (p *tracked) record(t float64, now time.Time, s Sample, err error) {
	if err != nil {
		p.err = err
		p.errs++
		return
	}
	if !p.haveFirst {
		p.first, p.haveFirst, p.last, p.lastT = s, true, s, now
		p.peak = s.RSSBytes
		return
	}
	dt := now.Sub(p.lastT).Seconds()
	if dt <= 0 {
		return
	}
	cores := max(s.CPUSeconds-p.last.CPUSeconds, 0) / dt
	p.series = append(p.series, report.ResourcePoint{T: round(t, 3), CPUCores: round(cores, 3), RSSBytes: s.RSSBytes})
	p.last, p.lastT = s, now
	p.peak = max(p.peak, s.RSSBytes)
}

func round(v float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}

// Stop ends sampling and returns every source's resources over the run, and an error naming
// each source that could never be read (its process is then left out).
func (m *Monitor) Stop() (*report.SUT, error) {
	m.cancel()
	<-m.done
	return m.collect()
}

// Snapshot is every source's resources so far, for a live view while the run goes on (the
// sources never read yet are left out, without an error). Nil for a nil Monitor.
func (m *Monitor) Snapshot() *report.SUT {
	if m == nil {
		return nil
	}
	s, _ := m.collect()
	return s
}

func (m *Monitor) collect() (*report.SUT, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := &report.SUT{Processes: []report.SUTProcess{}}
	var errs []error
	for _, p := range m.procs {
		if f, ok := p.src.(*Followed); ok && f.empty() {
			continue
		}
		if !p.haveFirst {
			errs = append(errs, fmt.Errorf("%s (%s): %w", p.src.Name(), p.src.Origin(), p.err))
			continue
		}
		peak := p.peak
		if p.last.PeakRSS > p.first.PeakRSS {
			// the process's own high-water mark rose during the run: it saw the peak between samples
			peak = max(peak, p.last.PeakRSS)
		}
		series := slices.Clone(p.series) // the sampler goes on appending to its own
		if series == nil {
			series = []report.ResourcePoint{}
		}
		f, _ := Found(p.src)
		out.Processes = append(out.Processes, report.SUTProcess{
			Name: p.src.Name(), PID: p.src.PID(), Source: p.src.Origin(), Listen: f.Addr, From: f.From, Role: f.Role,
			CPUSeconds:   round(p.last.CPUSeconds-p.first.CPUSeconds, 3),
			PeakRSSBytes: peak,
			Series:       series,
		})
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("system under test resources: %w", errors.Join(errs...))
	}
	return out, nil
}
