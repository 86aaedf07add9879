package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/natsx"
	"github.com/tradebench/tradebench/report"
)

// TestAgentFlags: the distributed run's flags refuse bad combinations with exit 2, naming the flag.
func TestAgentFlags(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"agent"}, "--nats: is required"},
		{[]string{"agent", "--nats", "nats://127.0.0.1:1", "extra"}, "unexpected argument"},
		{[]string{"agent", "--nats", "nats://127.0.0.1:1"}, "--nats-token-file: no NATS token"}, // none in its directory
		{[]string{"drive", "--url", srv.URL, "--agents", "2", "--nats", "nats://127.0.0.1:1"}, "--nats-token-file: no NATS token"},
		{[]string{"drive", "--url", srv.URL, "--nats-listen", "127.0.0.1:0"}, "--nats-listen applies to distributed runs"},
		{[]string{"drive", "--url", srv.URL, "--agents", "2"}, "--nats: needed with agents"},
		{[]string{"drive", "--url", srv.URL, "--agents", "2", "--nats", "nats://x:1", "--nats-listen", "127.0.0.1:0"}, "not both"},
		{[]string{"drive", "--url", srv.URL, "--agents", "-1"}, "--agents must not be negative"},
		{[]string{"drive", "--url", srv.URL, "--agents", "2", "--agents-wait", "-1s", "--nats", "nats://x:1"}, "--agents-wait: must be positive"},
		{[]string{"drive", "--url", srv.URL, "--agents", "2", "--nats-listen", "nowhere"}, "--nats-listen"},
		{[]string{"drive", "--target", srv.URL, "--peak", "--agents", "2", "--nats-listen", "127.0.0.1:0"}, "--peak"},
		{[]string{"drive", "--url", srv.URL, "-c", "2", "--agents", "3", "--nats-listen", "127.0.0.1:0", "--agents-wait", "1s", "--progress", "off"}, "--users: 2 is fewer than the 3 agents"},
		{[]string{"drive", "--url", srv.URL, "-c", "2", "--agents", "2", "--nats-listen", "127.0.0.1:0", "--agents-wait", "1s", "--progress", "off"}, "only 0 of 2 agents joined within 1s"},
		{[]string{"run", "--agents", "2", "--nats-listen", "127.0.0.1:0"}, "--agents drives an external deployment"},
	} {
		r := tb(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// TestDriveOnAgents is the one-command case: a controller starts its own NATS server, two agent
// processes join, and the merged results list both agents.
func TestDriveOnAgents(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	t.Setenv(natsx.EnvToken, "drive-on-agents-token-0123456789") // the controller's and the agents'
	out := filepath.Join(t.TempDir(), "r.json")
	ready := regexp.MustCompile(`agent ready`)
	done := make(chan result, 1)
	go func() {
		done <- tb(t, "drive", "--nats-listen", addr, "--agents", "2", "--agents-wait", "1m", "--url", srv.URL+"/", "-c", "4", "-d", "2s", "--progress", "on", "--max-p99", "1h", "--no-report", "--out", out)
	}()
	for _, name := range []string{"east", "west"} {
		a, _ := serveCmd(t, ready, "agent", "--nats", "nats://"+addr, "--name", name)
		defer a.stop(t)
	}
	r := <-done
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "agents: 2, 2 done, 0 lost") || !strings.Contains(r.stderr, "agents 2/2") {
		t.Errorf("summary or progress misses the fleet:\n%s\n%s", r.stdout, r.stderr)
	}
	res, err := report.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Agents) != 2 || res.Agents[0].Name != "east" || res.Agents[1].Name != "west" || res.Agents[0].Requests+res.Agents[1].Requests != res.Total.Count {
		t.Errorf("agents %+v, total %d", res.Agents, res.Total.Count)
	}
	if len(res.Thresholds) != 1 || !res.Thresholds[0].Passed || res.Thresholds[0].Actual != res.Total.P99Ms {
		t.Errorf("the threshold is not checked on the merged result: %+v, merged p99 %v", res.Thresholds, res.Total.P99Ms)
	}
}
