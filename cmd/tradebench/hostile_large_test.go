package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/tradebench/tradebench/report"
)

// flatResults writes a results file of n transactions, each with a real latency histogram, and
// a minute of series whose seconds each list 200 of them: flat (no nesting), large.
func flatResults(t *testing.T, path string, n int) {
	t.Helper()
	h := hdr.New(1, 60_000_000, 3)
	for v := int64(100); v < 2_000_000; v = v*11/10 + 1 {
		h.RecordValue(v)
	}
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	r := report.New("http")
	r.Scenario, r.Label = "flat", "flat"
	r.StartedAt = time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)
	r.EndedAt = r.StartedAt.Add(time.Minute)
	r.Transactions = make([]report.Transaction, n)
	for i := range r.Transactions {
		r.Transactions[i] = report.Transaction{Name: fmt.Sprintf("tx-%05d", i), Count: int64(i + 1), Pass: int64(i + 1), TPS: float64(i+1) / 60,
			MinMs: 0.1, MeanMs: 20, P50Ms: 10, P90Ms: 50, P99Ms: 900, MaxMs: 2000, Histogram: string(enc)}
	}
	r.Total = report.Transaction{Name: "total", Count: int64(n), Pass: int64(n)}
	for s := 1; s <= 60; s++ {
		p := report.SeriesPoint{Second: s, Phase: "steady", TPS: float64(n) / 60}
		for i := 0; i < 200; i++ {
			p.Transactions = append(p.Transactions, report.TxSecond{Name: fmt.Sprintf("tx-%05d", (s*200+i)%n), TPS: 1, P90Ms: 5})
		}
		r.Series = append(r.Series, p)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLargeFlatResultsBounded is item 6 of issue 50: nesting was bounded, size not enough — a
// results file of 30,000 transactions (9.5 MiB) took `report` 18.8 s and 689 MiB and wrote a
// 25 MB page, and neither `report` nor `report compare` stopped within 10 s of SIGTERM. Now a
// page draws at most report.MaxDrawnTransactions transactions (the busiest; the rest summed in
// one row) and bounded series and lists, so both commands stay under 300 MB and write a small
// page; and SIGTERM stops a report at once, whatever it is reading: here a results "file" that
// is a FIFO nobody writes, the command blocked reading it, must exit 130 leaving nothing.
// Mutants: report-draws-everything (ForDrawing returns the results whole),
// report-ignores-sigterm (the read not interruptible).
func TestLargeFlatResultsBounded(t *testing.T) {
	dir := t.TempDir()
	flatResults(t, filepath.Join(dir, "a.json"), 30_000)
	if fi, _ := os.Stat(filepath.Join(dir, "a.json")); fi != nil {
		t.Logf("results file: %d MiB", fi.Size()>>20)
	}
	for _, args := range [][]string{
		{"report", "a.json", "--out", "a.html"},
		{"report", "compare", "a.json", "a.json", "--out", "c.html"},
	} {
		r, rss := runRSS(t, dir, args...)
		out := args[len(args)-1]
		page, _ := os.ReadFile(filepath.Join(dir, out))
		t.Logf("%v: exit %d, peak RSS %d MiB, page %d KiB", args, r.code, rss>>20, len(page)>>10)
		if r.code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
		if rss > 300<<20 {
			t.Errorf("%v: peak RSS %d MiB (bound 300 MiB)", args, rss>>20)
		}
		if len(page) > 4<<20 {
			t.Errorf("%v: a page of %d KiB for a file of 30,000 transactions (bound 4 MiB)", args, len(page)>>10)
		}
		if !strings.Contains(string(page), report.OthersName(30_000-report.MaxDrawnTransactions+1)) || !strings.Contains(string(page), "tx-29999") {
			t.Errorf("%v: the page does not draw the busiest transactions and sum the rest", args)
		}
	}

	// SIGTERM while reading
	fifo := filepath.Join(dir, "slow.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	// held open for writing by the test, so the command's open returns and its read blocks
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, args := range [][]string{{"report", "slow.json", "--out", "s.html"}, {"report", "compare", "a.json", "slow.json", "--out", "s.html"}} {
		ctx, cancel := context.WithTimeout(context.Background(), smokeTimeout)
		cmd := smokeCmd(ctx, dir, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// the event: the child has the FIFO open (blocked in reading it, its signal handler set)
		opened := false
		for !opened && ctx.Err() == nil {
			fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
			for _, fd := range fds {
				if l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", cmd.Process.Pid, fd.Name())); l == fifo {
					opened = true
				}
			}
			if !opened {
				time.Sleep(10 * time.Millisecond) // polling /proc for the event: no timing asserted
			}
		}
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second): // the bound; a stuck command never ends
			cmd.Process.Kill()
			<-done
			t.Errorf("%v: still running 10 s after SIGTERM", args)
		}
		cancel()
		if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
			t.Errorf("%v after SIGTERM: exit %d, want %d\n%s", args, code, exitInterrupted, stderr.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "s.html")); err == nil {
			t.Errorf("%v: an interrupted report wrote its page", args)
		}
		if tmp, _ := filepath.Glob(filepath.Join(dir, ".report-*")); len(tmp) > 0 {
			t.Errorf("%v: an interrupted report left %v", args, tmp)
		}
	}
}
