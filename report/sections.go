package report

import (
	"encoding/json"
	"fmt"
	"strings"
)

// This file holds the results' sections that describe the run's surroundings rather than its
// measurements: the measuring machine, the system under test's resources, the full disclosure a
// published result needs, its price/performance, and the agents that generated the load. Each is
// filled by whoever knows it (the load engine, the run job, the controller) and rendered by the
// summary, the HTML report and the comparison.

// System describes the machine (and Go runtime) that ran the load generator.
type System struct {
	Go         string `json:"go"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
}

// SUT is the resource use of the system under test's processes during the run: sampled from /proc
// for the processes a run starts itself, or scraped from the servers' Prometheus endpoints.
type SUT struct {
	Processes []SUTProcess `json:"processes"`
}

// SUTProcess is one process (or one scraped server tier) of the system under test.
type SUTProcess struct {
	Name   string `json:"name"`             // role or tier, e.g. "monolith", "web-1", "bsl"
	PID    int    `json:"pid,omitempty"`    // 0 when scraped from another machine
	Source string `json:"source,omitempty"` // "proc" or the scraped URL
	// Listen is the address the process was found listening on: the server of a drive's
	// loopback target, found by its port because the drive named none (drive --sut-metrics).
	Listen string `json:"listen,omitempty"`
	// From is, for a process found by the system under test's connections on this machine, the
	// pid it was reached from: the one whose connection it serves (its services host, its
	// database's), or the one serving its connection (a client); Role which (RoleBackend,
	// RoleClient; empty for the server found by its port).
	From         int     `json:"from,omitempty"`
	Role         string  `json:"role,omitempty"`
	CPUSeconds   float64 `json:"cpu_seconds"` // CPU time used during the run
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
	// Series is one point a second since the run started.
	Series []ResourcePoint `json:"series"`
}

// ResourcePoint is one sample of a process's resources.
type ResourcePoint struct {
	T        float64 `json:"t"`         // seconds since the run started
	CPUCores float64 `json:"cpu_cores"` // CPU time used in the last interval / the interval
	RSSBytes int64   `json:"rss_bytes"`
}

// Disclosure is what a reader needs to replicate a published result (the papers' full disclosure):
// captured automatically by the commands that run load.
type Disclosure struct {
	Hardware Hardware `json:"hardware"`
	OS       OSInfo   `json:"os"`
	Software Software `json:"software"`
	// Configuration is every mode and setting of each server under test, as the server itself
	// reports it (a tradebench server's /trade/config.json). The instrument keeps it opaque: its
	// schema belongs to the system that wrote it.
	Configuration json.RawMessage `json:"configuration,omitempty"`
	DataSet       *DataSet        `json:"data_set,omitempty"`
	Workload      WorkloadInfo    `json:"workload"`
	RunRules      RunRules        `json:"run_rules"`
	// Command is the exact command line that produced the results.
	Command []string `json:"command,omitempty"`
	// Verification is `tradebench verify`'s outcome for the target, checked before the run
	// (drive/run --target --verify): whether the measured target implements the application.
	Verification *VerificationSummary `json:"verification,omitempty"`
}

// Hardware is the measuring machine's hardware.
type Hardware struct {
	CPUModel    string `json:"cpu_model"`
	Cores       int    `json:"cores"`
	MemoryBytes int64  `json:"memory_bytes"`
}

// OSInfo is the measuring machine's operating system.
type OSInfo struct {
	Kernel       string `json:"kernel"`
	Distribution string `json:"distribution"`
}

// Software is every piece of software in the measurement with its version.
type Software struct {
	Tradebench string `json:"tradebench"`
	Commit     string `json:"commit,omitempty"`
	Go         string `json:"go"`
	Database   string `json:"database,omitempty"` // e.g. "SQLite 3.50.4", "PostgreSQL 15.14"
	NATS       string `json:"nats,omitempty"`
}

// DataSet is the size and seed of the loaded data.
type DataSet struct {
	Accounts int64 `json:"accounts"`
	Quotes   int64 `json:"quotes"`
	Holdings int64 `json:"holdings,omitempty"` // per account
	Orders   int64 `json:"orders,omitempty"`   // per account
	Seed     int64 `json:"seed"`
}

// WorkloadInfo is the offered load: the scenario (with a hash of its content, so two results can
// tell whether they ran the same file), users, think time, rate and phases.
type WorkloadInfo struct {
	Scenario     string  `json:"scenario,omitempty"`
	ScenarioHash string  `json:"scenario_sha256,omitempty"`
	Users        int     `json:"users,omitempty"`
	Rate         float64 `json:"rate,omitempty"`
	Think        string  `json:"think,omitempty"`
	Phases       Phases  `json:"phases"`
}

// RunRules are the rules the result was measured under.
type RunRules struct {
	MeasuredWindow string   `json:"measured_window"` // e.g. "steady state only, 300 s"
	Thresholds     []string `json:"thresholds,omitempty"`
	ErrorsAre      string   `json:"errors_are"` // what counts as an error
}

// PricePerformance is the cost of the system under test per unit of throughput. Money is exact:
// Total and PerTPS are decimal strings ("12345.00"), never floats.
type PricePerformance struct {
	Currency string  `json:"currency"`
	Total    string  `json:"total"`
	TPS      float64 `json:"tps"`
	PerTPS   string  `json:"per_tps"`
	// TPSOf says which throughput TPS is: PriceOfPeak (the peak search's peak sustained TPS) or
	// PriceOfSteady (the measured steady state's), so a reader knows what was priced.
	TPSOf string `json:"tps_of,omitempty"`
	// Items are the priced components, disclosed with the price as the papers did.
	Items []PriceItem `json:"items,omitempty"`
}

// PriceItem is one priced component of the system under test; Cost is an exact decimal string.
type PriceItem struct {
	Name string `json:"name"`
	Cost string `json:"cost"`
}

// What a PricePerformance's TPS is.
const (
	PriceOfPeak   = "peak"
	PriceOfSteady = "steady"
)

// AgentResult is one load agent's part of a distributed run.
type AgentResult struct {
	Name     string  `json:"name"`
	Host     string  `json:"host"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	P99Ms    float64 `json:"p99_ms"`
	State    string  `json:"state"` // "done" or "lost"
	// DriverCPU is the agent's driver's CPU over the measured window, a fraction of its cores
	// (nil: not reported).
	DriverCPU *float64 `json:"driver_cpu,omitempty"`
	// Machine is what the agent's own machine did during the measured window: each agent
	// judges its own machine (the run rule other_processes).
	Machine *Machine `json:"machine,omitempty"`
}

// Pass is the agent's passed requests: the samples behind its p99.
func (a AgentResult) Pass() int64 { return a.Requests - a.Errors }

// DriverUsage is the load generator's own CPU use over the measured window.
type DriverUsage struct {
	CPUSeconds float64 `json:"cpu_seconds"`
	Cores      int     `json:"cores"` // GOMAXPROCS: the cores the driver may use
	// Utilisation is CPUSeconds / (window seconds × Cores).
	Utilisation float64 `json:"utilisation"`
	// SharedWithSUT: the driver's process also serves the system under test (the embedded
	// run), so its CPU includes the server's.
	SharedWithSUT bool `json:"shared_with_sut,omitempty"`
}

// Agent states.
const (
	AgentDone = "done"
	AgentLost = "lost"
)

// Machine is what the measuring machine as a whole did during a measured window: its busy CPU
// (steal included), the share tradebench's own processes took (the driver, and the server when
// it runs on this machine), and the rest — what other processes took. A benchmark on a shared
// machine measures its neighbours too; the run rule other_processes (validity.go) judges this.
// All CPU figures are in cores (CPU seconds per second of the window).
type Machine struct {
	// Seconds is the window measured; Cores the machine's online CPUs.
	Seconds float64 `json:"seconds"`
	Cores   int     `json:"cores"`
	// BusyCores is the whole machine's busy CPU (user, nice, system, irq, softirq and steal:
	// everything but idle and iowait); StealCores the part the hypervisor gave to other guests.
	BusyCores  float64 `json:"busy_cores"`
	StealCores float64 `json:"steal_cores"`
	// OwnCores is tradebench's own processes (Own). KernelCores is the kernel's own work: its
	// threads (kworker, ksoftirqd, kswapd…: Kernel) and the interrupts and softirqs /proc/stat
	// counts apart (InterruptCores, part of KernelCores). The kernel's work cannot be split
	// between this run and a neighbour — on loopback TCP, softirqs caused by the run's own traffic
	// and writeback of its own files land there — while a neighbour's own work is user-space
	// processes; so OtherCores = BusyCores − OwnCores − KernelCores (never below zero): user-space
	// processes that are not ours, those that came and went within the window, and steal
	// included. OtherShare is OtherCores / Cores; the other_processes rule judges it.
	OwnCores       float64 `json:"own_cores"`
	KernelCores    float64 `json:"kernel_cores"`
	InterruptCores float64 `json:"interrupt_cores,omitempty"`
	OtherCores     float64 `json:"other_cores"`
	OtherShare     float64 `json:"other_share"`
	// LoadStart and LoadEnd are the load averages (1, 5, 15 minutes) at the window's start and
	// end.
	LoadStart []float64 `json:"load_start,omitempty"`
	LoadEnd   []float64 `json:"load_end,omitempty"`
	// Own are the processes counted as the measurement's own; Busiest the other processes that
	// took the most CPU in the window (at most a few; empty where /proc does not tell).
	Own     []MachineProcess `json:"own,omitempty"`
	Busiest []MachineProcess `json:"busiest,omitempty"`
	// Kernel are the kernel threads that took the most CPU in the window, grouped by name.
	Kernel []MachineProcess `json:"kernel,omitempty"`
	// SUTNotFound says why the server of the drive's loopback target was not counted as the
	// measurement's own (nothing listens on its port, or its process is another user's): its
	// CPU, if it ran here, is in OtherCores. Empty when it was found (Own, with Listen), named
	// (drive --sut-metrics), or not on this machine.
	SUTNotFound string `json:"sut_not_found,omitempty"`
}

// MachineProcess is one process's CPU over a measured window.
type MachineProcess struct {
	Name  string  `json:"name"`
	PID   int     `json:"pid,omitempty"`
	Cores float64 `json:"cores"`
	// Listen is the address an own process was found listening on: the system under test,
	// found by its loopback target's port.
	Listen string `json:"listen,omitempty"`
	// From is, for a process found by the system under test's connections, the pid it was
	// reached from: the one whose connection it serves (its services host, its database's), or
	// the one serving its connection (a client); Role which (RoleBackend, RoleClient; empty for
	// the server found by its port).
	From int    `json:"from,omitempty"`
	Role string `json:"role,omitempty"`
	// AtOnce is, for a process found by the system under test's connections, how many of its
	// group (one name, role, address and process reached from) served at once at the most, of
	// the window's two readings: the count the summary names ("postgres ×16"), as the sut
	// section's name does — a pool's size, not how many processes took turns in it.
	AtOnce int `json:"at_once,omitempty"`
}

// String is the process as the verdict names it: "stress (pid 4242) 0.97 cores".
func (p MachineProcess) String() string {
	if p.PID > 0 {
		return fmt.Sprintf("%s (pid %d) %.2f cores", p.Name, p.PID, p.Cores)
	}
	return fmt.Sprintf("%s %.2f cores", p.Name, p.Cores)
}

// SUTFound are the lines that say which processes were counted as the system under test
// because they were found by its port or its connections, grouped by name, role and the
// process they were reached from: "system under test: tradebench (pid 1234), listening on
// 127.0.0.1:8080 — found by its port, its CPU (0.41 cores) counted as the measurement's own",
// "system under test: postgres ×17 at 127.0.0.1:5432 — backends of tradebench (pid 1234)'s own
// connections, their CPU (0.80 cores) counted as the measurement's own". A drive through a
// test bed finds a dozen database backends; one line says them all.
func (m *Machine) SUTFound() []string {
	var out []string
	for _, l := range FoundLines(m.Own, true) {
		out = append(out, "system under test: "+l)
	}
	return out
}

// Found is why p, one of the own processes, was counted as the system under test, as the
// summary says it (FoundLines), for the report's row of it: "listening on 127.0.0.1:5432 — a
// backend of tradebench (pid 1234)'s own connections"; empty for a process the run started
// or was told of.
func (m *Machine) Found(p MachineProcess) string {
	if p.Listen == "" {
		return ""
	}
	return FoundWhere(p.Listen, p.Role) + " — " + FoundWhy(p.Role, fromLabel(p.From, ownNames(m.Own)), 1)
}

// Found is why the process at i was counted as the system under test, as the machine's
// summary says it: "listening on 127.0.0.1:5432 — a backend of tradebench (pid 1234)'s own
// connections"; empty for a process the run started or was told of.
func (s *SUT) Found(i int) string {
	p := s.Processes[i]
	if p.Listen == "" {
		return ""
	}
	names := map[int]string{}
	for _, q := range s.Processes {
		if q.PID > 0 {
			names[q.PID] = q.Name
		}
	}
	n := 1
	if p.PID == 0 {
		n = 2 // a group as one source ("postgres ×17")
	}
	return FoundWhere(p.Listen, p.Role) + " — " + FoundWhy(p.Role, fromLabel(p.From, names), n)
}

// ownNames are the own processes' names by pid, to name the process another was reached from.
func ownNames(ps []MachineProcess) map[int]string {
	names := map[int]string{}
	for _, p := range ps {
		if p.PID > 0 {
			names[p.PID] = p.Name
		}
	}
	return names
}

// fromLabel names the process another was reached from: "tradebench (pid 1234)", or "pid
// 1234" where its name is not known; empty for none (the server found by its port).
func fromLabel(from int, names map[int]string) string {
	if from <= 0 {
		return ""
	}
	if n := names[from]; n != "" {
		return fmt.Sprintf("%s (pid %d)", n, from)
	}
	return fmt.Sprintf("pid %d", from)
}

// FoundWhere is where a found process was found: "listening on 127.0.0.1:5432", or for a
// client of the system under test "connected to 127.0.0.1:4222".
func FoundWhere(listen, role string) string {
	if role == RoleClient {
		return "connected to " + listen
	}
	return "listening on " + listen
}

// FoundWhy is the one wording of why n processes of one role, reached from the process
// labelled from ("tradebench (pid 1234)"; empty or unused for the server found by its port),
// are the system under test's: "found by its port", "a backend of tradebench (pid 1234)'s own
// connections" ("backends of …" for several), "a client of …", "serving the connections of …".
// The summary's lines and the report's tables all say it through here.
func FoundWhy(role, from string, n int) string {
	switch {
	case role == RoleBackend && n == 1:
		return "a backend of " + from + "'s own connections"
	case role == RoleBackend:
		return "backends of " + from + "'s own connections"
	case role == RoleClient && n == 1:
		return "a client of " + from
	case role == RoleClient:
		return "clients of " + from
	case from != "":
		return "serving the connections of " + from
	}
	return "found by its port"
}

// FoundLines are the processes found as the system under test (those of ps with Listen set),
// one line for each group of one name, role, address and process reached from: "tradebench
// (pid 1234), listening on 127.0.0.1:8080 — found by its port", "postgres ×17 at
// 127.0.0.1:5432 — backends of tradebench (pid 1234)'s own connections", each ending "its CPU
// counted as the measurement's own" (with cores: "its CPU (0.41 cores) counted…"). The names
// of the pids reached from are looked up in ps. A group's count is how many served at once at
// the most (MachineProcess.AtOnce) — a pool's size — with how many were counted beside it
// where that differs ("postgres ×16 (20 counted)": some were replaced within the window).
func FoundLines(ps []MachineProcess, cores bool) []string {
	type key struct {
		name, role, listen string
		from               int
	}
	var order []key
	groups := map[key][]MachineProcess{}
	names := ownNames(ps)
	for _, p := range ps {
		if p.Listen == "" {
			continue
		}
		k := key{p.Name, p.Role, p.Listen, p.From}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], p)
	}
	cpu := func(c float64) string {
		if !cores {
			return ""
		}
		return fmt.Sprintf(" (%.2f cores)", c)
	}
	var out []string
	for _, k := range order {
		g := groups[k]
		var sum float64
		atOnce := 0
		for _, p := range g {
			sum += p.Cores
			atOnce = max(atOnce, p.AtOnce)
		}
		from := fromLabel(k.from, names)
		if len(g) == 1 {
			p := g[0]
			out = append(out, fmt.Sprintf("%s (pid %d), %s — %s, its CPU%s counted as the measurement's own", p.Name, p.PID,
				FoundWhere(p.Listen, p.Role), FoundWhy(p.Role, from, 1), cpu(sum)))
			continue
		}
		count := fmt.Sprintf("×%d", len(g))
		if atOnce > 0 && atOnce != len(g) {
			count = fmt.Sprintf("×%d (%d counted)", atOnce, len(g))
		}
		out = append(out, fmt.Sprintf("%s %s at %s — %s, their CPU%s counted as the measurement's own", k.name, count, k.listen,
			FoundWhy(k.role, from, len(g)), cpu(sum)))
	}
	return out
}

// The roles of a process found as the system under test by its connections (MachineProcess.Role,
// SUTProcess.Role): it serves a connection the system under test opened (its services host, the
// database's process for that connection), or it opened one into the system under test (an
// order processor consuming from its broker). Empty for the server found by its port.
const (
	RoleBackend = "backend"
	RoleClient  = "client"
)

// FoundProcess names a process found as the system under test: "tradebench (pid 1234),
// listening on 127.0.0.1:8080 — found by its port"; for one serving a connection the system
// under test opened, "postgres (pid 77), listening on 127.0.0.1:5432 — a backend of pid 1234's
// own connections"; for a client, "orders (pid 88), connected to 127.0.0.1:4222 — a client of
// pid 77" (FoundWhy's wording, the pid reached from unnamed).
func FoundProcess(name string, pid int, listen string, from int, role string) string {
	f := ""
	if from > 0 {
		f = fmt.Sprintf("pid %d", from)
	}
	return fmt.Sprintf("%s (pid %d), %s — %s", name, pid, FoundWhere(listen, role), FoundWhy(role, f, 1))
}

// Line is the machine section in one line, as the summary prints it: "2 cores, busy 1.93
// (steal 0.02), tradebench 0.41, kernel 0.05, other processes 1.47 (76%); load 1.2 → 3.4; busiest other:
// …".
func (m *Machine) Line() string {
	s := fmt.Sprintf("%d cores, busy %.2f", m.Cores, m.BusyCores)
	if m.StealCores > 0 {
		s += fmt.Sprintf(" (steal %.2f)", m.StealCores)
	}
	s += fmt.Sprintf(", tradebench %.2f, kernel %.2f, other processes %.2f (%s of the machine)", m.OwnCores, m.KernelCores, m.OtherCores,
		pct(m.OtherShare))
	if len(m.LoadStart) > 0 && len(m.LoadEnd) > 0 {
		s += fmt.Sprintf("; load average %.2f → %.2f", m.LoadStart[0], m.LoadEnd[0])
	}
	if len(m.Busiest) > 0 {
		names := make([]string, 0, 3)
		for _, p := range m.Busiest[:min(3, len(m.Busiest))] {
			names = append(names, p.String())
		}
		s += "; busiest other: " + strings.Join(names, ", ")
	}
	return s
}
