package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// Faults injected during a run (a tier killed and restarted, a broker restarted) are part of what
// the run measured: a resilience test's question is what the fault cost, not whether a run
// without it was clean. The fault injector writes one JSON line per fault to a file
// (scripts/testbed crash does); drive --faults FILE reads it after the run, keeps the faults
// that overlap the run, counts the errors in each window, and the run rules then judge the
// errors outside the windows by the error rule and those inside by the faults rule
// (RuleFaults): a fault may cost at most the requests in flight on what was killed.

// Fault is one injected fault and its window.
type Fault struct {
	Name  string    `json:"name"` // what was done, e.g. "SIGKILL web1"
	Start time.Time `json:"start"`
	End   time.Time `json:"end"` // when the fault was repaired (the process answered again)
	// StartS and EndS are the window in seconds since the run started (StartedAt), as the
	// per-second series counts them.
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	// Errors are the failed transactions in the window's seconds of the measured window (with
	// FaultSlack on either side).
	Errors int64 `json:"errors"`
	// What else the fault cost, from the per-second series (recovery.go): the seconds from the
	// window's start until throughput was back within the steady state's noise (Recovered
	// false: it never was in the measured window), the throughput that counted as back
	// (FloorTPS; 0: recovery not measured), and the worst per-second p99 in the window.
	RecoveryS  float64 `json:"recovery_s"`
	Recovered  bool    `json:"recovered"`
	FloorTPS   float64 `json:"floor_tps"`
	WorstP99Ms float64 `json:"worst_p99_ms"`
}

// FaultSlack widens a fault window by this on each side when its errors are counted: the
// series' seconds are whole, and a request in flight when the process died fails as soon as its
// connection breaks, in the second of the kill or the one after.
const FaultSlack = time.Second

// Bounds on a faults file, which is read like any other input: a line, the file, the faults kept.
const (
	maxFaultsFile = 1 << 20
	maxFaults     = 1000
	maxFaultName  = 200
)

// ReadFaults reads a faults file: one JSON object a line, {"name":…, "start":RFC 3339,
// "end":RFC 3339}; blank lines are skipped. A line that is not such an object, an end before its
// start or a file over the bounds is an error naming the line.
func ReadFaults(path string) ([]Fault, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseFaults(io.LimitReader(f, maxFaultsFile+1))
}

func parseFaults(r io.Reader) ([]Fault, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if len(data) > maxFaultsFile {
		return nil, fmt.Errorf("faults file: larger than %d bytes", maxFaultsFile)
	}
	var out []Fault
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxFaultsFile)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if len(out) == maxFaults {
			return nil, fmt.Errorf("faults file: more than %d faults", maxFaults)
		}
		var x struct {
			Name       string
			Start, End time.Time
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&x); err != nil {
			return nil, fmt.Errorf("faults file line %d: %v (want {\"name\":…,\"start\":RFC 3339,\"end\":RFC 3339})", n, err)
		}
		switch {
		case strings.TrimSpace(x.Name) == "" || len(x.Name) > maxFaultName:
			return nil, fmt.Errorf("faults file line %d: a name of 1 to %d characters is required", n, maxFaultName)
		case x.Start.IsZero() || x.End.IsZero():
			return nil, fmt.Errorf("faults file line %d: start and end are required", n)
		case x.End.Before(x.Start):
			return nil, fmt.Errorf("faults file line %d: end %s is before start %s", n, x.End.Format(time.RFC3339Nano),
				x.Start.Format(time.RFC3339Nano))
		}
		out = append(out, Fault{Name: x.Name, Start: x.Start.UTC(), End: x.End.UTC()})
	}
	return out, sc.Err()
}

// AddFaults records the faults that overlap the run (StartedAt to EndedAt) with their windows in
// the run's seconds and the errors in each, in the order given, then what each cost beyond its
// errors (MeasureFaults: recovery, worst latency); it returns how many it kept.
func (r *Results) AddFaults(faults []Fault) int {
	kept := 0
	for _, f := range faults {
		if f.End.Before(r.StartedAt) || (!r.EndedAt.IsZero() && f.Start.After(r.EndedAt)) {
			continue
		}
		f.StartS = math.Round(f.Start.Sub(r.StartedAt).Seconds()*1000) / 1000
		f.EndS = math.Round(f.End.Sub(r.StartedAt).Seconds()*1000) / 1000
		f.Errors = 0
		lo, hi := f.StartS-FaultSlack.Seconds(), f.EndS+FaultSlack.Seconds()
		for _, p := range r.Series {
			if p.Phase == "steady" && secondOverlaps(p.Second, lo, hi) {
				f.Errors += p.Errors
			}
		}
		r.Faults = append(r.Faults, f)
		kept++
	}
	r.MeasureFaults()
	return kept
}

// secondOverlaps: the series' point t counts the second [t-1, t) (its errors closed by t).
func secondOverlaps(t int, lo, hi float64) bool {
	return float64(t) > lo && float64(t-1) < hi
}

// FaultErrors is the failed transactions inside the fault windows (a second in two windows
// counted once).
func (r *Results) FaultErrors() int64 {
	var n int64
	for _, p := range r.Series {
		if p.Phase != "steady" {
			continue
		}
		for _, f := range r.Faults {
			if secondOverlaps(p.Second, f.StartS-FaultSlack.Seconds(), f.EndS+FaultSlack.Seconds()) {
				n += p.Errors
				break
			}
		}
	}
	return min(n, r.Total.Errors)
}

// ruleFaults judges the faults: every error of the run must fall inside a fault window (an error
// outside one is a defect the fault did not excuse, and fails the errors rule too), and each
// window's errors are shown, so the verdict says what each fault cost.
func ruleFaults(res *Results) RuleResult {
	in := res.FaultErrors()
	out := res.Total.Errors - in
	parts := make([]string, len(res.Faults))
	for i, f := range res.Faults {
		parts[i] = fmt.Sprintf("%s at %.1f–%.1f s: %d errors", f.Name, f.StartS, f.EndS, f.Errors)
	}
	r := RuleResult{Rule: RuleFaults, Value: float64(in), Bound: float64(in),
		Detail: fmt.Sprintf("%s; %d errors outside the windows", strings.Join(parts, "; "), out)}
	r.Outcome = RulePass
	if out > 0 {
		r.Outcome = RuleFail
	}
	return r
}

// errNoFaultWindows: a faults file that names no fault during the run.
var errNoFaultWindows = errors.New("no fault in the faults file overlaps the run")

// AddFaultsFile reads path and records its faults that overlap the run; a file none of whose
// faults does is an error (the injector and the run missed each other).
func (r *Results) AddFaultsFile(path string) error {
	fs, err := ReadFaults(path)
	if err != nil {
		return err
	}
	if r.AddFaults(fs) == 0 {
		return fmt.Errorf("%s: %w (%d faults read)", path, errNoFaultWindows, len(fs))
	}
	return nil
}
