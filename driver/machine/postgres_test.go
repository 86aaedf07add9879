package machine

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/tradebench/tradebench/driver/sut"
	"github.com/tradebench/tradebench/internal/testing/pgtest"
	"github.com/tradebench/tradebench/internal/testing/reexec"
	"github.com/tradebench/tradebench/report"
)

// The main job's embedded server runs in the driver's process and keeps a pool of connections
// to a real PostgreSQL: the backend processes serving that pool are the system under test's
// (its database), whoever runs them — here the postgres user, when the test runs as root — and
// the summary says so in one line; a separate client's backend, and the postmaster, stay other
// processes. Which bucket, never how much CPU.
// The same processes as the sut section's one source (sut.Followed) are named by how many served
// the run at once, one whose connection closed included, one that replaced it not added.
// Mutants (scripts/mutants.d): sut-followed-named-last (named by the last reading only),
// sut-followed-named-turns (named by every backend that took a turn: "postgres ×4"),
// machine-self-unfollowed (the driver's own process not followed
// — the backends were others), sut-backends-user-checked (the database's backends held to the
// driver's user — as root they were others).
func TestEmbeddedDatabaseBackendsAreOwn(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this system")
	}
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	var ours []int
	var conns []*pgx.Conn
	for range 3 { // the embedded server's pool
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		conns = append(conns, c)
		var pid int
		if err := c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			t.Fatal(err)
		}
		ours = append(ours, pid)
	}
	_, line := reexec.Start(t, childEnv+"=pg-client", childEnv+"_DSN="+dsn)
	theirs, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("the other client: %s", line)
	}
	self := os.Getpid()
	m := window(t, Config{SUT: []sut.Source{sut.Self("tradebench")}})[0]
	t.Logf("machine: %s", m.Line())
	for _, pid := range ours {
		p := find(m.Own, pid)
		if p == nil || p.Role != report.RoleBackend || p.From != self || p.Name != "postgres" {
			t.Errorf("the backend (pid %d) of this process's connection is not among the own processes as its backend: %+v", pid, m.Own)
		}
	}
	if p := find(m.Own, theirs); p != nil {
		t.Errorf("another client's backend (pid %d) counted as the measurement's own: %+v", theirs, p)
	}
	for _, p := range m.Own {
		if p.Name == "postgres" && p.PID != ours[0] && p.PID != ours[1] && p.PID != ours[2] {
			t.Errorf("a postgres process not serving this process (the postmaster?) counted as own: %+v", p)
		}
	}
	// the same processes as one resource source of the sut section, beside the server's own
	f := sut.FollowSelf()
	if _, err := f.Read(ctx); err != nil {
		t.Fatal(err)
	}
	if l, ok := sut.Found(f); f.Name() != "postgres ×3" || !ok || l.Role != report.RoleBackend || l.From != self || l.Addr != "127.0.0.1:"+pgPort(dsn) {
		t.Errorf("the followed source: %q, %+v", f.Name(), l)
	}
	// the pool shrinks: a backend that served the run is still among those named
	conns[0].Close(ctx)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", ours[0])); err != nil {
			break
		}
	}
	if _, err := f.Read(ctx); err != nil || f.Name() != "postgres ×3" {
		t.Errorf("after a backend ended, the followed source is named %q (%v), want postgres ×3", f.Name(), err)
	}
	// the pool replaces it: a fourth backend took a turn, still three at once, as the machine's
	// line counts them (found at the source's next following, refollow reads on)
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if _, err := f.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if f.Name() != "postgres ×3" {
		t.Errorf("after the pool replaced a connection, the followed source is named %q, "+
			"want postgres ×3 (the most at once, not every backend that took a turn)", f.Name())
	}
	lines := m.SUTFound()
	want := fmt.Sprintf("system under test: postgres ×3 at 127.0.0.1:%s — backends of ", pgPort(dsn))
	cpu := fmt.Sprintf("(pid %d)'s own connections, their CPU (", self)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], want) || !strings.Contains(lines[0], cpu) {
		t.Errorf("summary lines %q, want one starting %q", lines, want)
	}
}

// pgPort is a postgres:// DSN's port.
func pgPort(dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return ""
	}
	return strconv.Itoa(int(cfg.Port))
}
