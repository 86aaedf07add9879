// Package machine measures the measuring machine itself during a run's measured window: its
// busy CPU from /proc/stat (steal included), the CPU of the measurement's own processes (this
// driver, and the system under test when it runs on this machine), the kernel's own work (its
// threads, and the interrupts and softirqs /proc/stat counts apart) and the rest — what other
// user-space processes took — with the load averages at the window's start and end and the
// busiest other processes by name.
//
// The kernel is not a neighbour: its work cannot be split between this run and another process
// (softirqs for the run's own loopback traffic are charged to no process; writeback of its own
// files runs in kworker threads), while a neighbour's work shows up in user space — a process's
// system time, spent in the kernel on its behalf, is its own. So the judged residual is
// busy − own − kernel: short-lived user-space processes still count in it, as does steal. The
// results carry it as their machine section, and the run rule other_processes
// (report/validity.go) judges it: a benchmark on a shared machine measures its neighbours too,
// and a number that did must not be called valid.
//
// It is part of the instrument: it reads only /proc (through internal/procfs) and the system
// under test's resource sources (package sut), never a system under test.
package machine

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/internal/procfs"
	"github.com/tradebench/tradebench/report"
)

// Busiest is how many of the busiest other processes the machine section names.
const Busiest = 5

// Config says where /proc is and which processes are the measurement's own.
type Config struct {
	// Root is the proc file system ("" = /proc; tests point elsewhere).
	Root string
	// Self is this process's pid (0 = os.Getpid()).
	Self int
	// SUT are the system under test's resource sources: a process on this machine (a pid) or a
	// server scraped at a loopback address is the measurement's own; one elsewhere is not. A
	// scraped server's process, found by what serves the port it is scraped on, is counted
	// through its scrape, and so is not among the busiest other processes. From these and the
	// driver, the processes at the other end of their connections on this machine are the
	// system under test's too (sut.Follow: its database's backends, its broker's clients),
	// found again at each reading.
	SUT []sut.Source
	// OwnNames are process names (as /proc/PID/stat gives them, e.g. "postgres") counted as
	// the measurement's own: a database server on this machine that the system under test uses.
	OwnNames []string
}

// snapshot is one reading of the machine.
type snapshot struct {
	at    time.Time
	cpu   procfs.CPU
	load  []float64
	procs map[int]procfs.Stat
	// scraped are the loopback SUT sources' CPU seconds, in the order of Watch.scrapes, and
	// whether each read succeeded
	scraped   []float64
	scrapedOK []bool
	// followed are the processes at the other end of the driver's and the system under test's
	// connections at this instant (sut.Follow)
	followed []sut.Listener
}

// Watch measures the window [from, to) of a run in the background.
type Watch struct {
	cfg     Config
	scrapes []sut.Source
	// scraped are the pids found serving each loopback scrape's port: the processes whose
	// CPU the scrape reports, so /proc's reading of them is neither counted again nor listed
	// among the other processes
	scraped [][]int
	// roots are the system under test's processes on this machine (the sources' pids and the
	// scraped ones): with the driver, where sut.Follow starts at each reading, since a server
	// opens more connections as the load grows (a database pool)
	roots  []int
	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	result *report.Machine
}

// Start measures the machine from the instant from until to, or until Result is called first
// (a run cut short). Without a readable /proc, Result is nil.
func Start(ctx context.Context, cfg Config, from, to time.Time) *Watch {
	if cfg.Self == 0 {
		cfg.Self = os.Getpid()
	}
	w := &Watch{cfg: cfg, stop: make(chan struct{}), done: make(chan struct{})}
	for _, s := range cfg.SUT {
		if s.PID() > 0 {
			w.roots = append(w.roots, s.PID())
		}
		if s.PID() == 0 && sut.Local(s.Origin()) {
			w.scrapes = append(w.scrapes, s)
			var pids []int
			// what serves the scraped port, whoever runs it (the user named it); none found:
			// listed as other
			found, _ := sut.FindServer(s.Origin(), true)
			for _, l := range found.Serving {
				pids = append(pids, l.PID)
			}
			w.scraped = append(w.scraped, pids)
			w.roots = append(w.roots, pids...)
		}
	}
	go func() {
		defer close(w.done)
		wait := func(t time.Time) bool {
			tm := time.NewTimer(time.Until(t))
			defer tm.Stop()
			select {
			case <-tm.C:
				return true
			case <-w.stop:
				return false
			}
		}
		if !wait(from) {
			return
		}
		a, ok := w.read(ctx)
		if !ok {
			return
		}
		wait(to)
		b, ok := w.read(ctx)
		if !ok {
			return
		}
		m := w.measure(a, b)
		w.mu.Lock()
		w.result = m
		w.mu.Unlock()
	}()
	return w
}

// Result ends the measurement (the run is over) and returns it: nil when the window was never
// reached or /proc could not be read.
func (w *Watch) Result() *report.Machine {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.result
}

// read takes one reading of the machine: false when /proc cannot be read.
func (w *Watch) read(ctx context.Context) (snapshot, bool) {
	fs := procfs.FS(w.cfg.Root)
	cpu, err := fs.CPU()
	if err != nil {
		return snapshot{}, false
	}
	s := snapshot{at: time.Now(), cpu: cpu, load: fs.LoadAvg()}
	for _, src := range w.scrapes {
		rctx, cancel := context.WithTimeout(ctx, sut.Interval)
		smp, err := src.Read(rctx)
		cancel()
		s.scraped = append(s.scraped, smp.CPUSeconds)
		s.scrapedOK = append(s.scrapedOK, err == nil)
	}
	s.procs = fs.Stats()
	s.followed = sut.Follow(w.cfg.Root, w.cfg.Self, w.roots)
	return s, true
}

// measure turns two snapshots into the window's machine section.
func (w *Watch) measure(a, b snapshot) *report.Machine {
	secs := b.at.Sub(a.at).Seconds()
	if secs <= 0 {
		return nil
	}
	cores := func(ticks uint64) float64 { return float64(ticks) / procfs.ClockTicks / secs }
	m := &report.Machine{Seconds: round(secs, 2), Cores: b.cpu.Cores, LoadStart: a.load, LoadEnd: b.load}
	if b.cpu.Busy >= a.cpu.Busy {
		m.BusyCores = cores(b.cpu.Busy - a.cpu.Busy)
	}
	if b.cpu.Steal >= a.cpu.Steal {
		m.StealCores = cores(b.cpu.Steal - a.cpu.Steal)
	}
	own, found, atOnce, scraped := w.owners(a, b)
	var ownCores, kthreadCores float64
	// the other processes, and the kernel's threads, grouped by name (two loops are "sh ×2"; a
	// kernel thread's name is cut at its '/': kworker/u8:3 is a kworker)
	others, kthreads := groups{}, groups{}
	var seenOther float64
	for pid, end := range b.procs {
		start, seen := a.procs[pid]
		if seen && (start.Start != end.Start || start.Start == 0 && start.Name != end.Name) {
			seen = false // the pid was reused (by its start time; by its name where that was not read)
		}
		used := end.UTime + end.STime // a process started in the window: all of it
		if seen {
			used -= min(used, start.UTime+start.STime)
		}
		if scraped[pid] {
			continue
		}
		if own[pid] || slices.Contains(w.cfg.OwnNames, end.Name) {
			ownCores += cores(used)
			f := found[pid]
			p := report.MachineProcess{Name: end.Name, PID: pid, Cores: round(cores(used), 3), Listen: f.Addr, From: f.From, Role: f.Role}
			p.AtOnce = atOnce[groupKey{f.Name, f.Addr, f.Role, f.From}]
			m.Own = append(m.Own, p)
			continue
		}
		if used == 0 {
			continue
		}
		name, _, _ := strings.Cut(end.Name, "/")
		if end.KernelThread() {
			kthreads.add(name, pid, cores(used))
			// ksoftirqd's time is in /proc/stat's softirq column too: counted there, once
			if name != "ksoftirqd" {
				kthreadCores += cores(used)
			}
			continue
		}
		others.add(name, pid, cores(used))
		seenOther += cores(used)
	}
	for i, s := range w.scrapes {
		if a.scrapedOK[i] && b.scrapedOK[i] && b.scraped[i] >= a.scraped[i] {
			c := (b.scraped[i] - a.scraped[i]) / secs
			ownCores += c
			p := report.MachineProcess{Name: s.Name(), Cores: round(c, 3)}
			if len(w.scraped[i]) == 1 {
				p.PID = w.scraped[i][0]
			}
			m.Own = append(m.Own, p)
		}
	}
	m.OwnCores = round(ownCores, 3)
	if b.cpu.IRQ >= a.cpu.IRQ {
		m.InterruptCores = cores(b.cpu.IRQ - a.cpu.IRQ)
	}
	// the kernel's work, never more than the machine's busy CPU left after ours
	kernel := min(kthreadCores+m.InterruptCores, max(m.BusyCores-ownCores, 0))
	m.KernelCores = round(kernel, 3)
	m.OtherCores = round(max(m.BusyCores-ownCores-kernel, 0), 3)
	busiest := others.list()
	// what other processes took beyond the ones still running at the window's end: processes
	// that came and went within it (a build's compilers), and steal
	if gone := m.OtherCores - seenOther; gone >= 0.01 {
		busiest = append(busiest, report.MachineProcess{Name: "(ended within the window, steal)", Cores: round(gone, 2)})
	}
	slices.SortFunc(m.Own, func(x, y report.MachineProcess) int { return x.PID - y.PID })
	slices.SortFunc(busiest, byCores)
	m.Busiest = busiest[:min(len(busiest), Busiest)]
	m.Kernel = kthreads.list()
	m.Kernel = m.Kernel[:min(len(m.Kernel), Busiest)]
	m.BusyCores, m.StealCores, m.InterruptCores = round(m.BusyCores, 3), round(m.StealCores, 3), round(m.InterruptCores, 3)
	if m.Cores > 0 {
		m.OtherShare = round(m.OtherCores/float64(m.Cores), 4)
	}
	return m
}

// groupKey is a group of followed processes: of one name, serving one address, reached one
// way from one process.
type groupKey struct {
	name, addr, role string
	from             int
}

// owners tells the measurement's own processes from the two readings: the driver, the system
// under test's processes (found, with how: by their port or connections), and how many of each
// group of followed processes served at once at the most (atOnce); scraped are the processes
// counted through their scrapes, not from /proc.
func (w *Watch) owners(a, b snapshot) (own map[int]bool, found map[int]sut.Listener, atOnce map[groupKey]int, scraped map[int]bool) {
	own = map[int]bool{w.cfg.Self: true}
	found = map[int]sut.Listener{} // own processes found by their port or connections
	for _, s := range w.cfg.SUT {
		if s.PID() > 0 {
			own[s.PID()] = true
			if l, ok := sut.Found(s); ok {
				found[s.PID()] = l
			}
		}
	}
	// the followed processes of both readings: a backend whose connection closed within the
	// window served it until then, one opened within it serves it since
	for _, l := range append(a.followed, b.followed...) {
		if !own[l.PID] {
			own[l.PID] = true
			found[l.PID] = l
		}
	}
	// how many of each group of followed processes served at once at the most, of the two
	// readings: the count the summary names (a pool's size, not the processes that took turns)
	atOnce = map[groupKey]int{}
	for _, reading := range [][]sut.Listener{a.followed, b.followed} {
		n := map[groupKey]int{}
		for _, l := range reading {
			n[groupKey{l.Name, l.Addr, l.Role, l.From}]++
		}
		for k, c := range n {
			atOnce[k] = max(atOnce[k], c)
		}
	}
	scraped = map[int]bool{}
	for i, pids := range w.scraped {
		for _, pid := range pids {
			// a scrape that failed at either end counts nothing: the process is counted from
			// /proc instead, as the measurement's own (the user named it)
			scraped[pid] = a.scrapedOK[i] && b.scrapedOK[i] && !own[pid]
			own[pid] = own[pid] || !scraped[pid]
		}
	}
	return own, found, atOnce, scraped
}

// group is processes of one name: the pid of one, how many, and their cores.
type group struct {
	pid, n int
	cores  float64
}

// groups are processes grouped by name.
type groups map[string]*group

func (g groups) add(name string, pid int, cores float64) {
	e := g[name]
	if e == nil {
		e = &group{pid: pid}
		g[name] = e
	}
	e.n++
	e.cores += cores
}

// list is the groups busiest first: "sh ×2" for a group of two, a single process with its pid.
func (g groups) list() []report.MachineProcess {
	out := make([]report.MachineProcess, 0, len(g))
	for name, e := range g {
		p := report.MachineProcess{Name: name, PID: e.pid, Cores: round(e.cores, 2)}
		if e.n > 1 {
			p.Name, p.PID = fmt.Sprintf("%s ×%d", name, e.n), 0
		}
		out = append(out, p)
	}
	slices.SortFunc(out, byCores)
	return out
}

func byCores(x, y report.MachineProcess) int {
	if c := cmp.Compare(y.Cores, x.Cores); c != 0 {
		return c
	}
	return strings.Compare(x.Name, y.Name)
}

func round(v float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}
