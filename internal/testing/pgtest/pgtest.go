// Package pgtest gives tests a fresh, empty database on a real PostgreSQL server.
//
// With TRADEBENCH_TEST_PG set to a DSN of a server where the user may CREATE DATABASE, every
// DSN call creates a uniquely named database there and drops it when the test ends. Without it,
// the first call starts one throwaway cluster per test process (initdb + postgres from PATH or
// /usr/lib/postgresql/*/bin) in a temporary directory, listening on a random port on 127.0.0.1,
// and each call creates a database in it. Call Main from TestMain to stop the cluster and
// remove its directory when the tests end; the server also gets a parent-death signal, so it
// does not outlive a crashed test process.
//
// If no PostgreSQL can be found the test is skipped, unless CI is set: CI must never skip.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvDSN names the environment variable with an external server's admin DSN.
const EnvDSN = "TRADEBENCH_TEST_PG"

var (
	once    sync.Once
	shared  *cluster
	initErr error
	skipErr error // PostgreSQL not installed: skip (or fail under CI)
)

// DSN returns a postgres:// DSN of a fresh empty database. It skips the test when no
// PostgreSQL is available (fails it when the CI environment variable is set).
func DSN(t testing.TB) string {
	t.Helper()
	admin := os.Getenv(EnvDSN)
	if admin == "" {
		once.Do(func() { shared, initErr = startCluster() })
		if skipErr != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("pgtest: %v (CI is set, so this test may not be skipped; install PostgreSQL or set %s)", skipErr, EnvDSN)
			}
			t.Skipf("pgtest: %v; install PostgreSQL (e.g. apt-get install postgresql) or set %s to a server DSN", skipErr, EnvDSN)
		}
		if initErr != nil {
			t.Fatalf("pgtest: starting a throwaway PostgreSQL cluster: %v", initErr)
		}
		admin = shared.adminDSN()
	}
	dsn, drop, err := createDatabase(admin)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Logf("pgtest: dropping test database: %v", err)
		}
	})
	return dsn
}

// Main runs the tests and then stops the throwaway cluster, if one was started:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the throwaway cluster (if any) and removes its directory.
func Stop() {
	if shared != nil {
		shared.stop()
	}
}

func createDatabase(admin string) (dsn string, drop func() error, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", nil, fmt.Errorf("connecting to %s: %w", redact(admin), err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tb_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("CREATE DATABASE on %s: %w", redact(admin), err)
	}
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, fmt.Errorf("%s must be a postgres:// URL, got %q", EnvDSN, redact(admin))
	}
	u.Path = "/" + name
	drop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return err
	}
	return u.String(), drop, nil
}

func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil {
		return u.Redacted()
	}
	return "(unparsable DSN)"
}

// cluster is a throwaway PostgreSQL server owned by this process.
type cluster struct {
	dir  string
	port int
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
}

func (c *cluster) adminDSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// findBin finds a PostgreSQL server binary: PATH first, then the newest Debian cluster version.
func findBin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("PostgreSQL's %s was not found on PATH or under /usr/lib/postgresql/*/bin", name)
}

func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// credential returns who runs the server: initdb and postgres refuse to run as root.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
	}
	return nil, errors.New("running as root and there is no postgres (or nobody) user to run PostgreSQL as")
}

func startCluster() (*cluster, error) {
	initdb, err := findBin("initdb")
	if err != nil {
		skipErr = err
		return nil, err
	}
	// postgres lives next to the initdb we found (PATH may hold symlinks into the real dir).
	postgres := filepath.Join(filepath.Dir(initdb), "postgres")
	if real, err := filepath.EvalSymlinks(initdb); err == nil {
		postgres = filepath.Join(filepath.Dir(real), "postgres")
	}
	if _, err := os.Stat(postgres); err != nil {
		if postgres, err = findBin("postgres"); err != nil {
			skipErr = err
			return nil, err
		}
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	sweep()
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	// The owner file lets a later test process remove this directory if this one dies
	// without calling Main (the server itself dies with us: Pdeathsig).
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	c := &cluster{dir: dir, done: make(chan struct{})}
	fail := func(err error) (*cluster, error) {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	data := filepath.Join(dir, "data")
	cmd := exec.Command(initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("%s: %v\n%s", initdb, err, out))
	}
	// The port is picked free and then handed to postgres; another process could take it in
	// between, so a failed start is retried on a new port.
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			return fail(err)
		}
		if lastErr = c.start(postgres, data, port, cred); lastErr == nil {
			return c, nil
		}
	}
	return fail(lastErr)
}

func (c *cluster) start(postgres, data string, port int, cred *syscall.Credential) error {
	logPath := filepath.Join(c.dir, "postgres.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	// Durability is pointless for throwaway test data; these settings make tests fast.
	cmd := exec.Command(postgres, "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+c.dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=64MB")
	cmd.Stdout, cmd.Stderr = logf, logf
	// Pdeathsig: a test process that dies without calling Main still takes the server with it
	// (SIGINT is PostgreSQL's fast shutdown).
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGINT, Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("postgres exited during startup:\n%s", tail(string(log)))
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port))
		if err == nil {
			conn.Close(ctx)
			cancel()
			c.port, c.cmd, c.done = port, cmd, done
			return nil
		}
		cancel()
		time.Sleep(100 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	<-done
	log, _ := os.ReadFile(logPath)
	return fmt.Errorf("postgres did not accept connections within 30s:\n%s", tail(string(log)))
}

func (c *cluster) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	c.cmd = nil
	_ = os.RemoveAll(c.dir)
}

const (
	dirPrefix = "tbpg-"
	ownerFile = "owner.pid"
)

// sweep removes cluster directories left by test processes that died without calling Main.
func sweep() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue // being created right now, or not ours
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.RemoveAll(d)
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.Join(lines, "\n")
}
