package htmlreport

import (
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

// The report shows the measuring machine: its busy CPU, the own and the other processes' share
// and the busiest others by name (a server found by its port says so); and each search step's
// other processes.
// Mutant: the machine section dropped from report.tmpl — the page had no "other processes".
func TestMachineSection(t *testing.T) {
	r := sample(100)
	r.Machine = &report.Machine{Seconds: 30, Cores: 2, BusyCores: 2, OwnCores: 0.4, OtherCores: 1.6, OtherShare: 0.8,
		LoadStart: []float64{1.5, 1, 1}, LoadEnd: []float64{3.25, 2, 1},
		Own: []report.MachineProcess{{Name: "tradebench", PID: 7, Cores: 0.3}, {Name: "nginx", PID: 8, Cores: 0.1, Listen: "127.0.0.1:8080"}}, Busiest: []report.MachineProcess{{Name: "sh ×2", Cores: 1.5}},
		KernelCores: 0.2, InterruptCores: 0.05, Kernel: []report.MachineProcess{{Name: "kworker ×3", Cores: 0.15}}}
	r.Peak = &report.PeakSearch{PeakStep: 2, Steps: []report.PeakStep{{Step: 1, Users: 100, OtherShare: 0.25}, {Step: 2, Users: 100, Phase: "confirm"}}}
	page := render(t, r)
	for _, want := range []string{`id="machine"`, "other user-space processes 1.6 (80", "the kernel 0.2 (interrupts and softirqs 0.05)", "<td>kworker ×3</td><td>—</td><td>0.15</td><td>kernel</td>", "Load average 1.5 at the start, 3.25 at the end", "<td>sh ×2</td>", "<td>tradebench</td><td>7</td>", "<td>nginx</td><td>8</td><td>0.1</td><td>own: the system under test, listening on 127.0.0.1:8080 — found by its port</td>", "<th>other processes</th>", "25"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// A database backend serving the embedded server's own connection is labelled in the report
// with the reason the summary gives — a backend of the server's own connections — in the
// machine's table and in the system under test's, not "found by its port" (which it was not).
// Mutant (scripts/mutants.d/report-found-reason-port): the report's reason for every found
// process "found by its port" again.
func TestFoundReasonAsTheSummary(t *testing.T) {
	r := sample(100)
	r.Machine = &report.Machine{Seconds: 30, Cores: 2, BusyCores: 1, OwnCores: 1,
		Own: []report.MachineProcess{{Name: "tradebench", PID: 7, Cores: 0.5},
			{Name: "postgres", PID: 20, Cores: 0.3, Listen: "127.0.0.1:5432", From: 7, Role: report.RoleBackend, AtOnce: 2},
			{Name: "postgres", PID: 21, Cores: 0.2, Listen: "127.0.0.1:5432", From: 7, Role: report.RoleBackend, AtOnce: 2}}}
	r.SUT = &report.SUT{Processes: []report.SUTProcess{{Name: "tradebench", PID: 7, Source: "proc"},
		{Name: "postgres ×2", Source: "proc", Listen: "127.0.0.1:5432", From: 7, Role: report.RoleBackend}}}
	summary := strings.Join(r.Machine.SUTFound(), "\n")
	const why = "backends of tradebench (pid 7)'s own connections"
	if !strings.Contains(summary, "postgres ×2 at 127.0.0.1:5432 — "+why) {
		t.Fatalf("the summary says %q, want the backends' reason %q", summary, why)
	}
	page := render(t, r)
	for _, want := range []string{
		"<td>postgres</td><td>20</td><td>0.3</td><td>own: the system under test, listening on 127.0.0.1:5432 — a backend of tradebench (pid 7)&#39;s own connections</td>",
		"<td>postgres ×2</td><td>—</td><td>proc, listening on 127.0.0.1:5432 — " + strings.ReplaceAll(why, "'", "&#39;") + "</td>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(page, "5432 (found by its port)") || strings.Contains(page, "5432 — found by its port") {
		t.Error("the report says a backend of the server's own connections was found by its port")
	}
}
