package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/sse"
	"github.com/tradebench/tradebench/internal/testing/headless"
)

// liveAttr reads a data-live-* count off the dashboard's root element (-1: absent).
func liveAttr(dom, name string) int {
	m := regexp.MustCompile(`<html[^>]* data-live-` + name + `="(\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestDashboardDuringARun drives a real server with --dashboard and --sut-metrics and opens the
// dashboard in headless Chromium twice, seconds apart: the charts have grown between the two
// reads (more seconds on their x axis), the page took updates from the event stream while it
// was open, the system under test's CPU and memory are drawn beside the load, and no script
// failed. An event-stream reader that joined during the run is sent the final report, and the
// page served after the run is that report.
//
// Mutant: live.js not calling setData (the plots keep the data they were served with) fails
// "did not grow from the event stream".
func TestDashboardDuringARun(t *testing.T) {
	chromium := headless.Require(t)
	base, metricsURL := serveSmall(t)
	_, dm := serveCmd(t, regexp.MustCompile(`live dashboard at (http://\S+)`),
		"drive", "--target", base, "--scenario", "buysell", "--set", "users=50", "--set", "quotes=20",
		"--users", "2", "--think", "50ms", "-d", "25s", "--progress", "off", "--no-report",
		"--sut-metrics", metricsURL, "--dashboard", "127.0.0.1:0", "--live-linger", "20s")
	dash := dm[1]

	// a reader that stays to the end
	final := make(chan string, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	go func() {
		defer close(final)
		st, err := sse.Dial(ctx, http.DefaultClient, dash+"events")
		if err != nil {
			t.Errorf("events: %v", err)
			return
		}
		defer st.Close()
		for {
			ev, err := st.Next()
			if err != nil {
				return
			}
			if ev.Name == "final" {
				var page string
				if err := json.Unmarshal([]byte(ev.Data), &page); err != nil {
					t.Errorf("final event: %v", err)
				}
				final <- page
				return
			}
		}
	}()

	read := func() string {
		// ?updates=3: the page follows the stream for three updates, then stops, so the
		// browser's virtual time can run out
		dom, err := headless.DumpServedDOM(ctx, chromium, dash+"?updates=3", 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if root := regexp.MustCompile(`<html[^>]*>`).FindString(dom); strings.Contains(root, "data-chart-errors") {
			t.Fatalf("a script failed: %s", root)
		}
		return dom
	}
	// the first read once the run has a few seconds and the server's first samples
	var first string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
		first = read()
		if liveAttr(first, "points") >= 3 && strings.Contains(first, `id="chart-sut-cpu"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard drew no run after a minute:\n%.3000s", first)
		}
	}
	time.Sleep(3 * time.Second)
	second := read()
	p1, p2 := liveAttr(first, "points"), liveAttr(second, "points")
	if p2 <= p1 {
		t.Errorf("the charts did not grow: %d seconds, then %d seconds later %d", p1, 3, p2)
	}
	if liveAttr(second, "updates") != 3 || liveAttr(second, "points") <= liveAttr(second, "loaded") {
		t.Errorf("the open page did not grow from the event stream: %d updates, %d seconds as served, %d after",
			liveAttr(second, "updates"), liveAttr(second, "loaded"), liveAttr(second, "points"))
	}
	for _, id := range []string{"tps", "latency", "users", "errors", "sut-cpu", "sut-mem"} {
		if !strings.Contains(second, `id="chart-`+id+`"`) {
			t.Errorf("no chart %s on the dashboard", id)
		}
	}
	if n := len(regexp.MustCompile(`class="uplot`).FindAllString(second, -1)); n < 6 {
		t.Errorf("%d charts drawn, want the 6 of the load and the server", n)
	}

	select {
	case page := <-final:
		if !strings.Contains(page, "tradebench report") || !strings.Contains(page, `id="transactions"`) {
			t.Errorf("the final event is not the report:\n%.2000s", page)
		}
	case <-ctx.Done():
		t.Fatal("no final report on the event stream")
	}
	// during the linger, the page is the final report, drawn
	dom := read()
	if !strings.Contains(dom, "tradebench report") || !strings.Contains(dom, `data-charts-drawn="`) || strings.Contains(dom, "tradebench live") {
		t.Errorf("after the run the dashboard is not the final report:\n%.2000s", dom)
	}
}
