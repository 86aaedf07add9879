// Package fleet spreads one drive over many load agents on NATS: a controller (a
// driver.Distributor) finds agents, gives each its share of the users or the rate and the scenario
// file itself, starts them all at one wall-clock instant, follows their per-second metrics and
// merges their final histograms exactly; an agent (tradebench agent) waits for runs and executes
// its share with the same engine a local drive uses.
//
// The protocol is NATS subjects, JSON messages for control and HDR histograms in their compressed
// encoding for latencies; the only patterns are publish/subscribe and NATS request/reply. Every
// message carries the protocol version and the tool version, and each run's messages its run id:
// an agent refuses a controller of another version, and both sides drop messages of runs they are
// not part of. docs/distributed.md describes the subjects and messages for readers of the wire.
package fleet

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/report"
)

// Proto is the protocol version. Bump it on any incompatible change of a message or subject.
const Proto = 1

// Subjects. Agents announce themselves on SubjectHello; a controller talks to one agent on that
// agent's subjects (request/reply) and hears a run's metrics and results on the run's subjects.
const (
	prefix       = "tradebench.fleet.v1"
	SubjectHello = prefix + ".hello"
)

// agentSubject is the subject of verb (assign, start, abort) for agent id.
func agentSubject(id, verb string) string { return prefix + ".agent." + id + "." + verb }

// runSubject is the subject of kind (tick, result) for run.
func runSubject(run, kind string) string { return prefix + ".run." + run + "." + kind }

// Timing of the protocol.
const (
	// HelloEvery is how often an agent announces itself, idle or busy: its heartbeat.
	HelloEvery = time.Second
	// LostAfter is how long an agent of a run may be silent before the controller counts it lost.
	LostAfter = 5 * time.Second
	// startLead is how far ahead the controller sets the start instant at least, so every agent
	// has the start message before the instant comes; a slower broker gets a longer lead
	// (leadFor).
	startLead = 2 * time.Second
	// leadPerAssign is how many of the assignment's round trips the lead is at least: the start
	// is one more round trip through the same broker and agents, so one that took seconds to
	// assign would confirm a 2 s start too late.
	leadPerAssign = 4
	// requestTimeout bounds one request/reply exchange.
	requestTimeout = 5 * time.Second
	// resultGrace is how long after the run's end a controller waits for final results, and an
	// agent keeps trying to deliver its own.
	resultGrace = 30 * time.Second
	// assignTTL is how long an agent keeps an assignment that no start follows.
	assignTTL = time.Minute
)

// Header is in every message: the protocol and tool versions of the sender.
type Header struct {
	Proto   int    `json:"proto"`
	Version string `json:"version"`
}

func header() Header { return Header{Proto: Proto, Version: report.Version} }

// compatible is an error unless h is this build's protocol and version: a run measured by
// binaries of two versions would not be one measurement.
func (h Header) compatible() error {
	if h.Proto != Proto || h.Version != report.Version {
		return fmt.Errorf("version mismatch: this is tradebench %s (protocol %d), the peer is %s (protocol %d); run the same version everywhere", report.Version, Proto, h.Version, h.Proto)
	}
	return nil
}

// Hello is an agent's announcement and heartbeat.
type Hello struct {
	Header
	ID    string `json:"id"`   // unique per agent process
	Name  string `json:"name"` // --name, or host-pid
	Host  string `json:"host"`
	Cores int    `json:"cores"`
	Run   string `json:"run,omitempty"` // the run it is assigned to or running ("" = idle)
}

// Assign gives an agent its share of a run. The agent prepares it (compiles the scenario, checks
// its share against the scenario's limits) and replies; it sends nothing to the target yet.
type Assign struct {
	Header
	Run   string `json:"run"`
	Index int    `json:"index"` // this agent's number in the run, 0-based
	Count int    `json:"count"` // agents in the run
	Share Share  `json:"share"`
}

// Share is the part of a drive one agent runs: the drive's own driver.Config, whose fields with
// a JSON name travel (the scenario file itself among them) and whose local ones (progress,
// thresholds, resources) do not. The controller changes only what is the agent's own — its
// part of the users, the rate and the in-flight cap, its run id, seed and slice of the unique
// ranges — so a drive setting added to driver.Config reaches the agents with nothing to copy.
type Share = driver.Config

// Start starts an assigned run at an instant (UTC, the controller's clock).
type Start struct {
	Header
	Run string    `json:"run"`
	At  time.Time `json:"at"`
}

// Abort stops a run on an agent, whether assigned or running.
type Abort struct {
	Header
	Run    string `json:"run"`
	Reason string `json:"reason"`
}

// Alive is the controller's heartbeat to a running run's agents, each HelloEvery.
type Alive struct {
	Header
	Run string `json:"run"`
}

// Reply answers Assign, Start and Result: OK, or the error that refused it.
type Reply struct {
	Header
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// Tick is one second of an agent's run, published when the second closes.
type Tick struct {
	Header
	Run    string `json:"run"`
	Agent  string `json:"agent"`
	Second int    `json:"t"` // seconds since the run started
	Phase  string `json:"phase"`
	Pass   int64  `json:"pass"`
	Errors int64  `json:"errors"`
	Hits   int64  `json:"hits"`
	Users  int    `json:"users"`
	// Hist is the second's latency histogram (passed transactions, microseconds), HDR V2
	// compressed and base64 as hdrhistogram's Encode writes it; empty when nothing passed.
	Hist string `json:"hist,omitempty"`
}

// Result is an agent's final results for a run: its measured window with every transaction's
// histogram encoded for the exact merge, without the per-second series (the ticks carried it).
type Result struct {
	Header
	Run     string          `json:"run"`
	Agent   string          `json:"agent"`
	Results *report.Results `json:"results,omitempty"`
	Error   string          `json:"error,omitempty"` // the run failed or was interrupted
}

// clip bounds a string a peer sent before it is shown or logged: the fleet's subjects are open
// to anyone on the broker.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// encode marshals a message; every message type marshals.
func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("fleet: encoding a message: " + err.Error())
	}
	return b
}
