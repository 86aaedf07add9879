package driver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver/peak"
	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/report"
)

// A real run too short for its p99 is inconclusive (not invalid: exit 0), its p99 shown as not
// enough samples, and the driver's own CPU is measured over the window.
// Mutant: load.Run not filling res.Driver: the driver CPU assertion failed.
func TestShortWindowIsInconclusive(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	// the machine's other processes are not this test's subject (a shared machine may be busy):
	// their rule is off, so the samples rule is the one reason
	rules := report.DefaultRules()
	rules.MaxOtherCPU = 1
	res, err := Drive(context.Background(), Config{URL: srv.URL + "/", Phases: Phases{Users: 1, Duration: time.Second}, Rules: &rules}, HTTP)
	if err != nil {
		t.Fatal(err)
	}
	v := res.Validity
	if v == nil || v.Verdict != report.Inconclusive || len(v.Reasons) != 1 || v.Reasons[0].Rule != report.RuleSamples {
		t.Fatalf("validity %+v", v)
	}
	if _, ok := res.PercentileMs(res.Total, 99); ok {
		t.Errorf("p99 of %d samples shown", res.Total.Pass)
	}
	// the httptest server runs in this process: the driver's CPU includes it, and says so
	if d := res.Driver; d == nil || d.Cores != runtime.GOMAXPROCS(0) || d.CPUSeconds < 0 || !d.SharedWithSUT {
		t.Errorf("driver CPU %+v", d)
	}
}

// A capacity claim against a server that never saturates — the search reaches its maximum with
// throughput still rising, and the server process (an idle one, watched from /proc) near 0 % CPU
// — is invalid: the bottleneck is outside the server.
// Mutant: ruleSaturated passing whenever the search ended (ignoring Knee): the run was valid.
func TestIdleServerUnderCapacityClaim(t *testing.T) {
	srv, _ := trivial(t)
	idle := exec.Command("sleep", "60")
	if err := idle.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	t.Cleanup(func() { idle.Process.Kill(); idle.Wait() })
	pc := &peak.Config{Start: 1, Max: 1, StepRampUp: new(100 * time.Millisecond), StepDuration: time.Second,
		ConfirmRampUp: 100 * time.Millisecond, ConfirmDuration: 2 * time.Second, MaxOtherShare: notDisturbed}
	res, err := Drive(context.Background(), Config{URL: srv.URL + "/", Phases: Phases{Users: 1}, Peak: pc,
		Resources: []sut.Source{&sut.Proc{ProcName: "idle server", Pid: idle.Process.Pid}}}, HTTP)
	if res == nil {
		t.Fatal(err)
	}
	if res.Peak == nil || res.Peak.Knee {
		t.Fatalf("peak %+v", res.Peak)
	}
	var inv *report.InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("error %v, want an InvalidError", err)
	}
	found := false
	for _, r := range res.Validity.Reasons {
		found = found || r.Rule == report.RuleSUTSaturated && strings.Contains(r.Detail, "the bottleneck is outside the server")
	}
	if !found {
		t.Errorf("reasons %+v", res.Validity.Reasons)
	}
}

// A target served by this very process (an httptest server here) is recognised: the driver's
// CPU then includes the server's and the driver_cpu rule is not checked; a port this process
// does not listen on is not. Mutant: servedHere saying true for any loopback target: the
// 127.0.0.1:1 case failed.
func TestServedHere(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	if !servedHere(srv.URL + "/x") {
		t.Errorf("%s is served by this process", srv.URL)
	}
	if servedHere("http://127.0.0.1:1/") || servedHere("http://10.0.0.1:"+strings.Split(srv.URL, ":")[2]) {
		t.Error("a port this process does not listen on counted as served here")
	}
	res, err := Drive(context.Background(), Config{URL: srv.URL + "/", Phases: Phases{Users: 1, Duration: time.Second}}, HTTP)
	if res == nil {
		t.Fatal(err)
	}
	if d := res.Driver; d == nil || !d.SharedWithSUT {
		t.Errorf("driver %+v: the in-process target was not recognised", d)
	}
}

// A capacity search's steps end exactly at their window's end (no ramp-down): the confirming
// run still has the driver's CPU (the deterministic check is load's TestDriverCPUStoppedEarly).
func TestSearchMeasuresDriverCPU(t *testing.T) {
	srv, _ := trivial(t)
	pc := &peak.Config{Start: 1, Max: 1, StepRampUp: new(100 * time.Millisecond), StepDuration: time.Second,
		ConfirmRampUp: 100 * time.Millisecond, ConfirmDuration: time.Second, MaxOtherShare: notDisturbed}
	res, err := Drive(context.Background(), Config{URL: srv.URL + "/", Phases: Phases{Users: 1}, Peak: pc}, HTTP)
	if res == nil {
		t.Fatal(err)
	}
	if res.Driver == nil || res.Driver.CPUSeconds <= 0 {
		t.Errorf("driver CPU %+v", res.Driver)
	}
}
