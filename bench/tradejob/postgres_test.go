package tradejob

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/driver/scenario"
	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/audit"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The main job's embedded server on a real PostgreSQL on this machine (issue 54): the backends
// serving its pool are the system under test's — one sut entry beside the monolith, found as
// backends of this process's own connections and named by the most serving at once, and in the
// machine reading among the own processes with the same reason the summary gives. A small data set and a two-second run (seconds; CI's server is shared).
// Mutant (scripts/mutants.d/tradejob-pg-unfollowed): the job adds no followed source for a
// database server — its backends were no sut entry.
func TestRunEmbeddedOnPostgres(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	dsn := pgtest.DSN(t)
	think := scenario.Think{}
	cfg := Config{Workdir: t.TempDir(), Accounts: 200, Quotes: 50, Embedded: Embedded{DB: dsn},
		Audit: StoreAudit(audit.Options{})}
	dc := driver.Config{Phases: driver.Phases{Users: 3, Think: &think, RampUp: 200 * time.Millisecond, Duration: 2 * time.Second}, Timeout: 10 * time.Second}
	var log strings.Builder
	cfg.Log = &log
	got, err := Run(context.Background(), cfg, dc)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	res := roundTrip(t, got)
	if res.Total.Pass == 0 || res.Total.Errors != 0 {
		t.Errorf("the run: %+v", res.Total)
	}
	self := os.Getpid()
	db := -1
	if res.SUT != nil {
		for i, p := range res.SUT.Processes {
			if p.Role == report.RoleBackend {
				db = i
			}
		}
	}
	if db < 0 {
		t.Fatalf("no sut entry for the database's backends: %+v", res.SUT)
	}
	if p := res.SUT.Processes[db]; p.From != self || !strings.HasPrefix(p.Name, "postgres") || p.CPUSeconds <= 0 || !strings.Contains(res.SUT.Found(db), "own connections") {
		t.Errorf("the database's sut entry: %+v, %q", p, res.SUT.Found(db))
	}
	m := res.Machine
	if m == nil {
		t.Fatal("no machine reading")
	}
	backends := 0
	for _, p := range m.Own {
		if p.Role == report.RoleBackend && p.Name == "postgres" {
			backends++
			if why := m.Found(p); !strings.Contains(why, "a backend of ") || !strings.Contains(why, "own connections") {
				t.Errorf("the backend (pid %d) in the machine reading: %q", p.PID, why)
			}
		}
	}
	if backends == 0 {
		t.Errorf("no database backend among the own processes: %+v", m.Own)
	}
}
