// Package report is the results model every tradebench workload writes (a versioned JSON
// schema), and the ways of showing it: the terminal summary table, comparison and the HTML report.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tradebench/tradebench/internal/version"
)

// Version is the tradebench version recorded in every result.
const Version = version.Version

// SchemaVersion is the version of the results JSON. Bump it on any incompatible change, and
// teach ReadFile to convert the previous one. Version 2 typed the settings and replaced the
// untyped "extra" with the workload's own section ("detail") and the server's configuration
// (disclosure.configuration).
const SchemaVersion = 2

// Results is one run of one workload: what was measured, how, and against what.
type Results struct {
	SchemaVersion int    `json:"schema_version"`
	Tool          string `json:"tool"`    // "tradebench"
	Version       string `json:"version"` // tool version
	Workload      string `json:"workload"`
	// Label names the run in the summary, the report and comparisons (--label; by default the
	// workload and its key settings, see Name).
	Label     string    `json:"label,omitempty"`
	Scenario  string    `json:"scenario,omitempty"`
	Target    string    `json:"target,omitempty"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`

	// Settings are the run's settings as given (load model, users, rate, phases, think time...).
	Settings Settings `json:"settings"`
	// System describes the measuring machine.
	System *System `json:"system,omitempty"`

	Phases        Phases  `json:"phases"`
	SteadySeconds float64 `json:"steady_seconds"` // the measured window's actual length

	Transactions []Transaction `json:"transactions"`
	Total        Transaction   `json:"total"` // all transactions together

	Hits        int64            `json:"hits"` // HTTP requests (redirects are hits), measured window
	HitsPerSec  float64          `json:"hits_per_sec"`
	Bytes       int64            `json:"bytes"` // response body bytes received (not headers: wrk counts those too), measured window
	BytesPerSec float64          `json:"bytes_per_sec"`
	StatusCodes map[string]int64 `json:"status_codes"`
	Errors      []ErrorGroup     `json:"errors"`

	// Open model only: arrivals never started because the in-flight limit was reached, and
	// arrivals that started later than intended.
	Dropped int64 `json:"dropped"`
	Late    int64 `json:"late"`
	// Arrivals counts the open model's arrivals due in the measured window (started, late or
	// dropped): the base of the late fraction.
	Arrivals int64 `json:"arrivals,omitempty"`
	// Driver is the load generator's own CPU over the measured window (the run rules' check
	// that the driver was not the bottleneck).
	Driver *DriverUsage `json:"driver,omitempty"`
	// Machine is the measuring machine's CPU over the measured window: its busy CPU, the
	// share of tradebench's own processes and what other processes took (the run rule
	// other_processes). Nil when /proc could not be read (not Linux).
	Machine *Machine `json:"machine,omitempty"`

	// Series is one point per second over the whole run (all phases).
	Series []SeriesPoint `json:"series"`

	Peak *PeakSearch `json:"peak,omitempty"`
	// Validity is the verdict under the run rules (validity.go): is this number valid?
	Validity   *Validity         `json:"validity,omitempty"`
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
	Audit      *AuditSummary     `json:"audit,omitempty"`
	// AuditError says why an audit that was asked for could not run (the verdict is then
	// inconclusive: nothing shows the work was done).
	AuditError string `json:"audit_error,omitempty"`
	// Detail is the workload's own results (a cache sweep's points, XML Mark's documents and
	// MB/s, the trade job's order completion latency), encoded by the package that owns the
	// workload with its own type (see Section and DecodeSection).
	Detail json.RawMessage `json:"detail,omitempty"`
	// Stream is what event stream subscribers held open during the run measured (any HTTP
	// target's Server-Sent Events; drive --stream-subscribers).
	Stream *StreamDelivery `json:"stream,omitempty"`

	// SUT is the system under test's resource use; Disclosure what a reader needs to replicate
	// the result; PricePerformance its cost per TPS; Agents the load agents of a distributed run.
	SUT              *SUT              `json:"sut,omitempty"`
	Disclosure       *Disclosure       `json:"disclosure,omitempty"`
	PricePerformance *PricePerformance `json:"price_performance,omitempty"`
	Agents           []AgentResult     `json:"agents,omitempty"`

	Notes []string `json:"notes,omitempty"`
	// readOthers is how many transactions the last row stands for when reading the file summed
	// those past MaxReadTransactions into it (0: none summed), so that a page's own cut counts
	// them.
	readOthers int
	// Faults are the faults injected during the run with their windows and errors (drive
	// --faults; faults.go): the run rules judge the errors inside them apart.
	Faults []Fault `json:"faults,omitempty"`

	// Repeats are the runs of a repeated measurement (--repeat N), in order, each with its own
	// headline numbers; the rest of the results (series, histograms, errors) are the last run's.
	// Empty for a single run.
	Repeats []Repeat `json:"repeats,omitempty"`
}

// Phases are the configured phase lengths in seconds.
type Phases struct {
	RampUpSeconds   float64 `json:"ramp_up_seconds"`
	SteadySeconds   float64 `json:"steady_seconds"`
	RampDownSeconds float64 `json:"ramp_down_seconds"`
}

// Transaction is the measured-window summary of one named transaction, from an exact merge of
// every worker's histogram.
type Transaction struct {
	Name   string  `json:"name"`
	Count  int64   `json:"count"`  // pass + fail (stopped ones are not counted)
	Pass   int64   `json:"pass"`   // completed with valid responses
	Errors int64   `json:"errors"` // failed a check or the transport
	Stop   int64   `json:"stop"`   // cut off by the end of the run
	TPS    float64 `json:"tps"`    // passed per second of steady state
	MinMs  float64 `json:"min_ms"`
	MeanMs float64 `json:"mean_ms"`
	StdMs  float64 `json:"std_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P95Ms  float64 `json:"p95_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p999_ms"`
	MaxMs  float64 `json:"max_ms"`
	// Histogram is the HDR histogram of passed latencies in microseconds, encoded (V2,
	// compressed, base64) so results from many agents or runs can be merged exactly later.
	Histogram string `json:"histogram,omitempty"`
	// Failed is the latency of the failed transactions, kept apart from the passed ones (a
	// timeout or a fast error page would distort them); nil when none failed.
	Failed *Latency `json:"failed,omitempty"`
}

// Latency summarizes a set of latencies.
type Latency struct {
	Count int64   `json:"count"`
	P50Ms float64 `json:"p50_ms"`
	P90Ms float64 `json:"p90_ms"`
	P99Ms float64 `json:"p99_ms"`
	MaxMs float64 `json:"max_ms"`
}

// ErrorGroup is all errors of one kind with the first example seen.
type ErrorGroup struct {
	Kind        string `json:"kind"`
	Transaction string `json:"transaction"`
	Count       int64  `json:"count"`
	Example     string `json:"example"`
}

// SeriesPoint is one second of the run.
type SeriesPoint struct {
	Second int     `json:"t"`     // seconds since the run started
	Phase  string  `json:"phase"` // ramp-up, steady, ramp-down
	TPS    float64 `json:"tps"`   // transactions passed in this second
	Errors int64   `json:"errors"`
	Hits   int64   `json:"hits"`
	P50Ms  float64 `json:"p50_ms"`
	P90Ms  float64 `json:"p90_ms"`
	P99Ms  float64 `json:"p99_ms"`
	Users  int     `json:"users"` // running virtual users (closed) or in-flight iterations (open)
	// Transactions are each transaction's passed count and latency in this second (runs on
	// one machine; a distributed run's merged series has none).
	Transactions []TxSecond `json:"transactions,omitempty"`
}

// TxSecond is one transaction in one second of the series.
type TxSecond struct {
	Name  string  `json:"name"`
	TPS   float64 `json:"tps"`
	P50Ms float64 `json:"p50_ms"`
	P90Ms float64 `json:"p90_ms"`
	P99Ms float64 `json:"p99_ms"`
}

// PeakSearch is the outcome of a capacity search: geometric growth of the load to the knee,
// bisection, and a longer confirming run at the peak.
type PeakSearch struct {
	PeakTPS   float64    `json:"peak_tps"`
	PeakUsers int        `json:"peak_users"`
	PeakStep  int        `json:"peak_step"`
	StopWhy   string     `json:"stop_reason"`
	Steps     []PeakStep `json:"steps"`
	// PeakRate is the open model's arrival rate at the peak.
	PeakRate float64 `json:"peak_rate,omitempty"`
	// Knee: the search saw the server saturate (throughput stopped rising with the load, or
	// latency crossed its bound) rather than running out of users or steps.
	Knee bool `json:"knee"`
	// PeakP90Ms and PeakSUTCPU are the confirming run's p90 and the server's CPU (cores).
	PeakP90Ms  float64 `json:"peak_p90_ms,omitempty"`
	PeakSUTCPU float64 `json:"peak_sut_cpu,omitempty"`
	// Seconds is the search's wall time, the confirming run included.
	Seconds float64 `json:"seconds,omitempty"`
	// PeakTPSHalf is the half-width of the 95 % confidence interval of the confirming run's
	// throughput (batch means of its per-second series): the noise of one measurement at one
	// load, not the capacity's uncertainty — Interval is that.
	PeakTPSHalf float64 `json:"peak_tps_half,omitempty"`
	// Interval is where a second search of the same build on the same machine lands (nil in
	// results written before it was stated, and when the search did not confirm a peak).
	Interval *CapacityInterval `json:"interval,omitempty"`
	// Limit names what limited the capacity (server CPU, the p90 bound, errors, the driver's
	// CPU, other processes on the machine…); LimitWhy says what showed it.
	Limit    string `json:"limit,omitempty"`
	LimitWhy string `json:"limit_why,omitempty"`
	// Doubt says why the search does not support its capacity: the steps around the knee
	// disagreed on a second measurement, or the confirming run disagreed with the search. Any
	// makes the verdict inconclusive (the run rule capacity_search).
	Doubt []string `json:"doubt,omitempty"`
}

// PeakStep is one step of a peak search.
type PeakStep struct {
	Step      int     `json:"step"`
	Users     int     `json:"users"`
	Rate      float64 `json:"rate,omitempty"`
	TPS       float64 `json:"tps"`
	P90Ms     float64 `json:"p90_ms"`
	P99Ms     float64 `json:"p99_ms"`
	ErrorRate float64 `json:"error_rate"`
	// Phase is "grow", "shrink", "bisect", "remeasure" or "confirm"; Good whether the step was below the knee and
	// within the bounds; SUTCPU the server's CPU in cores over the step.
	Phase  string  `json:"phase,omitempty"`
	Good   bool    `json:"good,omitempty"`
	SUTCPU float64 `json:"sut_cpu,omitempty"`
	// OtherShare is the share of the machine's cores other processes took during the step
	// (Results.Machine); DriverCPU the driver's CPU as a share of its cores.
	OtherShare float64 `json:"other_share,omitempty"`
	DriverCPU  float64 `json:"driver_cpu,omitempty"`
	// Note says why a step was measured again, or how its second measurement compared.
	Note string `json:"note,omitempty"`
	// Superseded marks a measurement the search did not believe and measured again (other
	// processes disturbed it, or it measured less than a lower load beyond the noise): it is
	// kept for the record, and neither judged nor held against the run by the other_processes
	// rule.
	Superseded bool `json:"superseded,omitempty"`
}

// load is the step's load in words: "800 users" or "12.5/s".
func (s PeakStep) load() string {
	if s.Users > 0 {
		return fmt.Sprintf("%d users", s.Users)
	}
	return fmt.Sprintf("%g/s", s.Rate)
}

// ThresholdResult is one pass/fail criterion evaluated on the results.
type ThresholdResult struct {
	Name   string  `json:"name"`
	Limit  float64 `json:"limit"`
	Actual float64 `json:"actual"`
	Passed bool    `json:"passed"`
}

// AuditSummary is the correctness audit of the database after a run, for a workload that has
// one (StockTrader's trade/audit.Summary, converted).
type AuditSummary struct {
	Passed bool `json:"passed"`
	Checks int  `json:"checks"` // invariants checked
	// Violations lists violations readably, "kind: what", at most a limit of each kind.
	Violations []string `json:"violations,omitempty"`
	// OpenOrders counts orders not in a final state (violations unless allowed).
	OpenOrders int64 `json:"open_orders"`
	// ViolationCount counts every violation, listed or not; ByKind splits it by kind.
	ViolationCount int64            `json:"violation_count"`
	ByKind         map[string]int64 `json:"by_kind,omitempty"`
	// Open lists open orders when they were allowed (not violations).
	Open []string `json:"open,omitempty"`
	// What was examined, and how long the audit took.
	Accounts int64 `json:"accounts"`
	Orders   int64 `json:"orders"`
	// Placed counts the orders placed since the load (or the last reset).
	Placed   int64   `json:"placed"`
	Holdings int64   `json:"holdings"`
	Quotes   int64   `json:"quotes"`
	Seconds  float64 `json:"seconds"`
}

// New returns Results with the identifying fields filled in.
func New(workload string) *Results {
	return &Results{
		SchemaVersion: SchemaVersion,
		Tool:          "tradebench",
		Version:       Version,
		Workload:      workload,
		StatusCodes:   map[string]int64{},
	}
}

// Transaction returns the named transaction, or false.
func (r *Results) Transaction(name string) (Transaction, bool) {
	for _, t := range r.Transactions {
		if t.Name == name {
			return t, true
		}
	}
	return Transaction{}, false
}

// ErrorRate is errors / count over all transactions of the measured window.
func (r *Results) ErrorRate() float64 {
	if r.Total.Count == 0 {
		return 0
	}
	return float64(r.Total.Errors) / float64(r.Total.Count)
}

// WriteFile writes the results as indented JSON, atomically (a temp file renamed into place),
// so a crash never leaves a half-written results file.
func (r *Results) WriteFile(path string) error { return writeJSONFile(path, r) }

// writeJSONFile writes v as indented JSON to path atomically: every results file the kit
// writes (a run's, a verification's) goes through it.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".results-*.json")
	if err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("write results: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write results: %w", err)
	}
	// CreateTemp makes the file 0600; results are meant to be shared.
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write results: %w", err)
	}
	return os.Rename(f.Name(), path)
}
