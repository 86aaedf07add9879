package tradejob

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/driver/scenarios"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/audit"
	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/orders"
	"github.com/tradebench/tradebench/trade/remote"
	"github.com/tradebench/tradebench/trade/server"
	"github.com/tradebench/tradebench/trade/web"
)

// The main job end to end on a small data set: load, serve, drive stocktrader, return results —
// with zero errors — and a second run on the same working directory resets instead of loading.
// The job writes no results file: it returns them, and the command publishes them once
// (report/publish). Mutant: tradejob-writes-results (the job writing WORKDIR/results.json
// again, as before the command wrote them a second time) fails this test.
func TestRunEmbedded(t *testing.T) {
	dir := t.TempDir()
	// 60 ms between steps: two iterations of 19 last at least 2.2 s, so the server's CPU is
	// sampled at least twice (once a second) however fast the machine
	think := scenario.Think{Kind: scenario.ThinkFixed, A: 60 * time.Millisecond}
	cfg := Config{Workdir: dir, Accounts: 300, Quotes: 100, Audit: StoreAudit(audit.Options{})}
	// two iterations a user, not a duration: what a run measures must not depend on how fast
	// the machine is (at a load of 20 a 2 s run measured 24 transactions, below the old bound)
	dc := driver.Config{Phases: driver.Phases{Users: 3, Think: &think, Duration: 2 * time.Minute}, Iterations: 2,
		Timeout: 10 * time.Second, Thresholds: []report.Threshold{report.MaxErrorRate(0)}}
	for run := 1; run <= 2; run++ {
		var log strings.Builder
		cfg.Log = &log
		got, err := Run(context.Background(), cfg, dc)
		// sync orders complete inside their request: no "order completion … p50 0.00 ms" line and
		// no detail.orders (mutant: drop the !queued test — the line is back)
		if strings.Contains(log.String(), "order completion") || got != nil && len(got.Detail) > 0 {
			t.Errorf("run %d: order completion reported in sync mode:\n%s", run, log.String())
		}
		if err != nil {
			if got != nil {
				for _, e := range got.Errors {
					t.Errorf("%s ×%d in %s: %s", e.Kind, e.Count, e.Transaction, e.Example)
				}
			}
			t.Fatalf("run %d: %v", run, err)
		}
		if written, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(written) != 0 {
			t.Errorf("run %d: the job wrote results itself: %v", run, written)
		}
		res := roundTrip(t, got)
		// judged, and not on what the run did wrong: a few seconds of load on a busy machine may
		// be no steady state, but no rule of the run's own conduct (errors, nothing lost, the
		// audit) fails
		if v := res.Validity; v == nil {
			t.Errorf("run %d: not judged", run)
		} else {
			for _, r := range v.Rules {
				if r.Outcome == report.RuleFail && (r.Rule == report.RuleErrors || r.Rule == report.RuleLost || r.Rule == report.RuleAudit) {
					t.Errorf("run %d: rule %s failed: %s", run, r.Rule, r.Detail)
				}
			}
		}
		if res.Scenario != "stocktrader" || res.Total.Pass != 3*2*19 || res.Total.Errors != 0 {
			t.Errorf("run %d: %s %+v", run, res.Scenario, res.Total)
		}
		p := res.Settings.Params
		if p["users"] != "300" || p["quotes"] != "100" {
			t.Errorf("the scenario was not sized to the data set: %v", p)
		}
		if a := res.Audit; a == nil || !a.Passed || a.Checks != audit.Checks || a.Accounts < 300 || a.Orders <= 1500 {
			t.Errorf("run %d: the results have no passed audit over the run's orders: %+v", run, a)
		}
		if _, ok := res.Transaction("register"); !ok {
			t.Errorf("no registrations measured: %+v", res.Transactions)
		}
		// the process that served (and drove) the run, sampled from /proc, named for what it is
		if res.SUT == nil || len(res.SUT.Processes) != 1 || res.SUT.Processes[0].Name != SelfName ||
			res.SUT.Processes[0].PID != os.Getpid() || len(res.SUT.Processes[0].Series) < 1 || res.SUT.Processes[0].CPUSeconds <= 0 {
			t.Errorf("run %d: sut %+v", run, res.SUT)
		}
		d := res.Disclosure
		if d == nil || !strings.HasPrefix(d.Software.Database, "SQLite 3.") || d.DataSet == nil || d.DataSet.Accounts != 300 ||
			d.DataSet.Quotes != 100 || d.Workload.Scenario != "stocktrader" || len(d.Configuration) == 0 || len(d.RunRules.Thresholds) != 1 {
			t.Errorf("run %d: disclosure %+v", run, d)
		}
	}
}

// A SQLite database in a directory that does not exist is refused before anything is made: no
// working directory, no data set. Mutant: tradejob-db-unchecked (Embedded.Validate's directory
// check off) — the run went on and failed opening the database instead.
func TestRunChecksDBFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "work")
	_, err := Run(context.Background(), Config{Workdir: dir, Embedded: Embedded{DB: "sqlite:" + filepath.Join(dir, "no", "such", "x.db")}, Accounts: 10, Quotes: 10}, driver.Config{Phases: driver.Phases{Users: 1, Duration: time.Second}})
	var se *setting.Error
	if !errors.As(err, &se) || se.Field != "DB" || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a database in a missing directory: %v", err)
	}
	if _, serr := os.Stat(dir); serr == nil {
		t.Error("the working directory was made before the refusal")
	}
}

// Embedded's settings are checked in one place for run's flags and --versus KEY=VALUE: an
// unknown access or order mode and an unknown key are refused naming the field; Value shows the
// default of an unset setting and never a DSN's password. Mutant: embedded-access-unchecked
// (the access mode not checked) fails this test.
func TestEmbeddedSettings(t *testing.T) {
	var e Embedded
	for _, c := range []struct{ key, value, field string }{
		{"access", "rset", "Access"}, {"orders", "async", "Orders"}, {"db", "mysql://x", "DB"},
	} {
		_, err := e.Set(c.key, c.value)
		var se *setting.Error
		if !errors.As(err, &se) || se.Field != c.field {
			t.Errorf("%s=%s: %v, want a setting.Error of %s", c.key, c.value, err, c.field)
		}
	}
	if _, err := e.Set("cache", "on"); err == nil {
		t.Error("an unknown key was taken")
	}
	b, err := e.Set("orders", "async-durable")
	if err != nil || b.Orders != orders.AsyncDurable || e.Orders != "" {
		t.Errorf("Set: %+v %v (and e %+v unchanged?)", b, err, e)
	}
	if e.Value("access") != remote.InProcess || e.Value("orders") != string(orders.Sync) || e.Value("db") != "default" {
		t.Errorf("defaults: %s %s %s", e.Value("access"), e.Value("orders"), e.Value("db"))
	}
	if v := (Embedded{DB: "postgres://u:secret@127.0.0.1/x"}).Value("db"); strings.Contains(v, "secret") {
		t.Errorf("a DSN's password in the label: %s", v)
	}
}

// roundTrip is res as a results file says it: encoded and read back.
func roundTrip(t *testing.T, res *report.Results) *report.Results {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	back, err := report.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

func TestRunRejectsBadDataSet(t *testing.T) {
	_, err := Run(context.Background(), Config{Workdir: t.TempDir(), Accounts: 1, Quotes: -5}, driver.Config{Phases: driver.Phases{Users: 1, Duration: time.Second}})
	if err == nil {
		t.Error("a negative quote count was accepted")
	}
}

// A run whose database does not add up fails with audit.Failed (exit status 4), and the
// results file still has the audit and its violations.
func TestRunFailsOnAudit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "corrupt.db")
	// 60 ms between steps: two iterations of 19 last at least 2.2 s, so the server's CPU is
	// sampled at least twice (once a second) however fast the machine
	think := scenario.Think{Kind: scenario.ThinkFixed, A: 60 * time.Millisecond}
	corrupt := func(ctx context.Context, srv *server.Server) (*report.AuditSummary, error) {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		// what a lost update of one order would leave: the money moved, the volume did not
		if _, err := db.ExecContext(ctx, "UPDATE quotes SET volume = volume - 3 WHERE symbol = 's:7'"); err != nil {
			return nil, err
		}
		return StoreAudit(audit.Options{})(ctx, srv)
	}
	cfg := Config{Workdir: dir, Embedded: Embedded{DB: "sqlite:" + path}, Accounts: 100, Quotes: 50, Audit: corrupt}
	got, err := Run(context.Background(), cfg, driver.Config{Phases: driver.Phases{Users: 2, Think: &think, Duration: time.Second}, Timeout: 10 * time.Second})
	var af *audit.Failed
	if !errors.As(err, &af) || af.Violations != 1 {
		t.Fatalf("run on a corrupted database: %v, want audit.Failed with 1 violation", err)
	}
	res := roundTrip(t, got)
	if a := res.Audit; a == nil || a.Passed || a.ByKind[audit.KindVolume] != 1 || len(a.Violations) != 1 {
		t.Fatalf("results audit %+v, want one volume violation", a)
	}
}

// The main job with the web tier calling its services over SOAP and orders on the durable
// queue: the run waits for the queue, measures completion latency, and the audit passes.
func TestRunRemoteAccessAsyncOrders(t *testing.T) {
	dir := t.TempDir()
	// 60 ms between steps: two iterations of 19 last at least 2.2 s, so the server's CPU is
	// sampled at least twice (once a second) however fast the machine
	think := scenario.Think{Kind: scenario.ThinkFixed, A: 60 * time.Millisecond}
	cfg := Config{Workdir: dir, Accounts: 2000, Quotes: 100, Audit: StoreAudit(audit.Options{}),
		Embedded: Embedded{Access: remote.SOAP, Orders: orders.AsyncDurable}}
	got, err := Run(context.Background(), cfg, driver.Config{Scenario: "buysell", Phases: driver.Phases{Users: 3, Think: &think, Duration: 2 * time.Second}, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	res := roundTrip(t, got) // what the file will say, after the JSON round trip
	if a := res.Audit; a == nil || !a.Passed || a.OpenOrders != 0 {
		t.Fatalf("audit %+v", a)
	}
	d, err := DetailOf(res)
	if ol := d.Orders; err != nil || ol == nil || ol.Placed < 10 || ol.Completed != ol.Placed || ol.Open != 0 || ol.MaxMs <= 0 || ol.P50Ms > ol.P99Ms {
		t.Fatalf("order latency %+v (%v)", ol, err)
	}
	var srv web.Configuration
	if res.Disclosure == nil || report.DecodeSection(res.Disclosure.Configuration, &srv) != nil ||
		srv.Orders.Mode != string(orders.AsyncDurable) || srv.Access == nil || srv.Access.Mode != remote.SOAP {
		t.Fatalf("results do not record the modes: %+v", srv)
	}
	if tx, _ := res.Transaction("sell"); tx.Pass == 0 {
		t.Fatalf("no sells: %+v", res.Transactions)
	}
	if d := res.Disclosure; d == nil || !strings.HasPrefix(d.Software.NATS, "NATS server 2.") {
		t.Errorf("the durable order mode's broker is not disclosed: %+v", d)
	}
}

// Against a tradebench target loaded with 1,000 accounts, every built-in scenario sizes its
// users and quotes from the target's /trade/config.json and passes; a --set beyond the data set
// is refused before any load.
// Mutant: sizeFromTarget returning the params unchanged: stocktrader drew uid:0…499999, the
// preflight's login of a missing account failed and Drive returned a *PreflightError.
func TestBuiltinScenariosSizeThemselves(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "st.db")
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 1000, 200
	if err := prepare(context.Background(), db, spec, func(string, ...any) {}, io.Discard); err != nil {
		t.Fatal(err)
	}
	sc := server.DefaultConfig()
	sc.DB, sc.Listen = db, "127.0.0.1:0"
	sc.Orders.WorkDir = dir
	srv, err := server.Start(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// 60 ms between steps: two iterations of 19 last at least 2.2 s, so the server's CPU is
	// sampled at least twice (once a second) however fast the machine
	think := scenario.Think{Kind: scenario.ThinkFixed, A: 60 * time.Millisecond}
	for _, name := range scenarios.Names() {
		res, err := driver.Drive(context.Background(), driver.Config{Target: srv.URL(), Scenario: name, Phases: driver.Phases{Users: 2, Think: &think, Duration: 2 * time.Second}, Timeout: 10 * time.Second}, driver.HTTP)
		if res == nil {
			t.Fatalf("%s: %v", name, err)
		}
		var inv *report.InvalidError
		if errors.As(err, &inv) || res.Total.Errors > 0 || res.Total.Pass == 0 {
			t.Errorf("%s against 1,000 accounts: %v %+v %+v", name, err, res.Total, res.Errors)
		}
		if p := res.Settings.Params; p["users"] != "1000" || p["quotes"] != "200" {
			t.Errorf("%s was not sized to the target's data set: %v", name, p)
		}
	}
	_, err = driver.Drive(context.Background(), driver.Config{Target: srv.URL(), Scenario: "stocktrader", Phases: driver.Phases{Users: 1, Duration: time.Second}, Params: map[string]string{"users": "500000"}}, driver.HTTP)
	if err == nil || !strings.Contains(err.Error(), "users=500000 is beyond the target's data set: it has 1000 accounts") {
		t.Errorf("users=500000 against 1,000 accounts: %v", err)
	}
}

// TestDriveSizesToARemoteWebTier: a drive against a web tier without a database (the test bed's
// behind its load balancer, the split deployment's) sizes its scenario from the services host's
// data set that the web tier reports, as against the monolith: no --set users=… --set quotes=….
// Mutant: driver-access-data-set-ignored (the preflight reads only config.json's store).
func TestDriveSizesToARemoteWebTier(t *testing.T) {
	dir := t.TempDir()
	bc := server.DefaultConfig()
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 300, 70
	bc.Roles, bc.DB, bc.LoadIfEmpty = server.Roles{BSL: true}, "sqlite:"+filepath.Join(dir, "st.db"), &spec
	bc.BSLListen, bc.BSLGRPCListen, bc.Orders.WorkDir = "127.0.0.1:0", "127.0.0.1:0", dir
	bc.ServiceToken = "remote-web-tier-test-token-0123456789"
	bsl, err := server.Start(context.Background(), bc)
	if err != nil {
		t.Fatal(err)
	}
	defer bsl.Close()
	wc := server.DefaultConfig()
	wc.Roles, wc.DB, wc.Listen = server.Roles{Web: true}, "", "127.0.0.1:0"
	wc.Access, wc.BSL, wc.ServiceToken = remote.REST, bsl.Host().Info().HTTPAddr, bc.ServiceToken
	w, err := server.Start(context.Background(), wc)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// 60 ms between steps: two iterations of 19 last at least 2.2 s, so the server's CPU is
	// sampled at least twice (once a second) however fast the machine
	think := scenario.Think{Kind: scenario.ThinkFixed, A: 60 * time.Millisecond}
	res, err := driver.Drive(context.Background(), driver.Config{Target: w.URL(), Scenario: "stocktrader", Phases: driver.Phases{Users: 2, Think: &think, Duration: time.Second}, Timeout: 10 * time.Second}, driver.HTTP)
	if res == nil {
		t.Fatalf("drive against a remote web tier: %v", err)
	}
	if p := res.Settings.Params; p["users"] != "300" || p["quotes"] != "70" {
		t.Errorf("the drive was not sized to the services host's data set: %v", p)
	}
	if res.Total.Errors > 0 || res.Total.Pass == 0 {
		t.Errorf("drive against a remote web tier: %v %+v %+v", err, res.Total, res.Errors)
	}
}
