package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tradebench/tradebench/internal/logsafe"
)

// WarningPrefix starts a note the summary prints as a warning (the other notes are in the
// results and the report): a run the user should know was measured in a doubtful way.
const WarningPrefix = "warning: "

// WriteSummary prints the transaction summary table (in the manner of LoadRunner's), totals,
// status codes and error groups.
func (r *Results) WriteSummary(w io.Writer) {
	// names, labels and a target's error examples are untrusted: none reaches the terminal raw
	w = logsafe.TerminalWriter(w)
	r.writeVerdict(w)
	r.writeHeading(w)
	fmt.Fprintln(w)
	r.writeTransactions(w)
	fmt.Fprintln(w)
	r.writeTraffic(w)
	r.writeStatusCodes(w)
	for _, e := range r.Errors {
		fmt.Fprintf(w, "error: %s ×%d in %s — first: %s\n", e.Kind, e.Count, e.Transaction, e.Example)
	}
	r.writeAgents(w)
	if p := r.Peak; p != nil && r.Validity == nil { // judged results print it as their capacity, first
		fmt.Fprintf(w, "peak sustained: %s tps at %d users (step %d); stopped: %s\n", p.Capacity(), p.PeakUsers, p.PeakStep, p.StopWhy)
	}
	for _, t := range r.Thresholds {
		verdict := "ok"
		if !t.Passed {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "threshold %s: %g (limit %g) %s\n", t.Name, t.Actual, t.Limit, verdict)
	}
	r.writeAudit(w)
	r.WriteRepeats(w)
	for _, n := range r.Notes {
		if strings.HasPrefix(n, WarningPrefix) {
			fmt.Fprintln(w, n)
		}
	}
}

// writeHeading says what was measured, against what, for how long, and whether the target
// was verified first: the line a reader checks before trusting the table under it.
func (r *Results) writeHeading(w io.Writer) {
	fmt.Fprintf(w, "\n%s", r.Workload)
	if r.Label != "" {
		fmt.Fprintf(w, " %q", r.Label)
	}
	if r.Scenario != "" {
		fmt.Fprintf(w, " / %s", r.Scenario)
	}
	if r.Target != "" {
		fmt.Fprintf(w, " against %s", r.Target)
	}
	fmt.Fprintf(w, " — measured %.1fs of steady state\n", r.SteadySeconds)
	if d := r.Disclosure; d != nil && d.Verification != nil {
		fmt.Fprintf(w, "target verified: %s\n", d.Verification.Line())
	}
}

// writeTransactions is the table of transactions, in the manner of LoadRunner's, with the
// total when there is more than one, and a note when a percentile had too few samples.
func (r *Results) writeTransactions(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "transaction\tcount\tpass\tfail\tstop\ttps\tmin ms\tmean ms\tp50 ms\tp90 ms\tp99 ms\tmax ms\t")
	few := false
	row := func(t Transaction) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.Name, t.Count, t.Pass, t.Errors, t.Stop, t.TPS,
			FormatMs(t.MinMs), FormatMs(t.MeanMs), r.percentileCell(t, 50), r.percentileCell(t, 90), r.percentileCell(t, 99), FormatMs(t.MaxMs))
		if _, ok := r.PercentileMs(t, 99); !ok {
			few = true
		}
	}
	for _, t := range r.Transactions {
		row(t)
	}
	if len(r.Transactions) > 1 {
		row(r.Total)
	}
	tw.Flush()
	if few {
		fmt.Fprintf(w, "— %s: a p99 needs %d passed transactions in the measured window, a p90 %d\n", NotEnoughSamples, r.MinSamples(),
			r.MinSamples()/10)
	}
}

// writeTraffic is the run's traffic and error rate, then the machine and the system under
// test's CPU by process (the server beside its database), over the measured window.
func (r *Results) writeTraffic(w io.Writer) {
	if r.Hits > 0 { // workloads that make no HTTP requests (XML Mark, gRPC) have no hits to show
		fmt.Fprintf(w, "hits: %d (%.1f/s)  body bytes: %s (%s/s)  ", r.Hits, r.HitsPerSec, FormatBytes(float64(r.Bytes)), FormatBytes(r.BytesPerSec))
	}
	fmt.Fprintf(w, "error rate: %.4f%%", 100*r.ErrorRate())
	if r.Dropped > 0 || r.Late > 0 || r.Settings.Model == ModelOpen {
		fmt.Fprintf(w, "  dropped: %d  late: %d", r.Dropped, r.Late)
	}
	fmt.Fprintln(w)
	if m := r.Machine; m != nil {
		fmt.Fprintf(w, "machine: %s\n", m.Line())
		for _, l := range m.SUTFound() {
			fmt.Fprintln(w, l)
		}
	}
	if parts := SUTParts(r); len(parts) > 1 {
		// the server beside its database (or its other tiers), over the measured window
		total, _ := SUTCPU(r)
		fmt.Fprintf(w, "system under test CPU: %.2f cores (%s)\n", total, partsText(parts))
	}
}

// writeStatusCodes counts the answers by status; in quick mode, which measures whatever the URL
// answers, it says how many were not 2xx.
func (r *Results) writeStatusCodes(w io.Writer) {
	if len(r.StatusCodes) == 0 {
		return
	}
	codes := make([]string, 0, len(r.StatusCodes))
	for c := range r.StatusCodes {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s×%d", c, r.StatusCodes[c])
	}
	fmt.Fprintf(w, "status codes: %s\n", strings.Join(parts, "  "))
	if n := r.notSuccess(); n > 0 && r.Settings.Mode == ModeQuick {
		fmt.Fprintf(w, "  %d of the answers were not 2xx", n)
		if e := r.errorAnswers(); e > 0 {
			fmt.Fprintf(w, ", %d of them 400 or above (measured as answers, not failed)", e)
		}
		fmt.Fprintln(w, ": quick mode measures whatever the URL answers, as wrk does")
	}
}

// writeAudit is the audit's outcome: its counts when it passed, else its first 20 violations
// and how many more the results file holds.
func (r *Results) writeAudit(w io.Writer) {
	a := r.Audit
	if a == nil {
		return
	}
	if a.Passed {
		fmt.Fprintf(w, "audit: passed (%d checks over %d accounts, %d orders, %d holdings, %d quotes in %.2fs)\n",
			a.Checks, a.Accounts, a.Orders, a.Holdings, a.Quotes, a.Seconds)
	} else {
		n := max(a.ViolationCount, int64(len(a.Violations))) // results written before violation_count
		fmt.Fprintf(w, "audit: FAILED, %d violations\n", n)
		for i, v := range a.Violations {
			if i == 20 {
				break
			}
			fmt.Fprintf(w, "  - %s\n", v)
		}
		if more := n - int64(min(len(a.Violations), 20)); more > 0 {
			fmt.Fprintf(w, "  … and %d more (see the results file)\n", more)
		}
	}
}

// writeAgents lists a distributed run's agents, and says plainly when any was lost: its
// measurements are then missing from the merged table above.
func (r *Results) writeAgents(w io.Writer) {
	if len(r.Agents) == 0 {
		return
	}
	var lost []string
	for _, a := range r.Agents {
		if a.State == AgentLost {
			lost = append(lost, a.Name)
		}
	}
	fmt.Fprintf(w, "agents: %d, %d done, %d lost\n", len(r.Agents), len(r.Agents)-len(lost), len(lost))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  agent\thost\trequests\terrors\tp99 ms\tstate\t")
	for _, a := range r.Agents {
		p99 := "—" // the samples rule, as in the transactions table
		if EnoughSamples(a.Pass(), 99, r.MinSamples()) {
			p99 = FormatMs(a.P99Ms)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\t%s\t\n", a.Name, a.Host, a.Requests, a.Errors, p99, a.State)
	}
	tw.Flush()
	if len(lost) > 0 {
		fmt.Fprintf(w, "LOST AGENTS: %s stopped reporting; the table above merges the other agents only\n", strings.Join(lost, ", "))
	}
}

// notSuccess counts the answers whose status is not 2xx.
// errorAnswers counts the answers of status 400 and above: in quick mode they are measured, not
// failed, and the summary says how many there were (wrk's "Non-2xx or 3xx responses").
func (r *Results) errorAnswers() int64 {
	var n int64
	for c, k := range r.StatusCodes {
		if code, err := strconv.Atoi(c); err == nil && code >= 400 {
			n += k
		}
	}
	return n
}

func (r *Results) notSuccess() int64 {
	var n int64
	for c, k := range r.StatusCodes {
		if !strings.HasPrefix(c, "2") {
			n += k
		}
	}
	return n
}
