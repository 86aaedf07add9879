package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/bench/cacheperfjob"
	"github.com/tradebench/tradebench/driver"
	"github.com/tradebench/tradebench/internal/cliflag"
	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/trade/audit"
)

// The CLI test: every command, run as the real binary (this test binary re-executed as
// tradebench, see TestMain) in a temporary directory, with a wrong flag, a duration without its
// unit, a bad file and no arguments. Each must end with the exit status of the one table
// (docs/guide.md), say what is wrong in ONE line on stderr — no help dump — and create nothing.

// cliCase is one command line and how it must end.
type cliCase struct {
	args []string
	code int
	want []string // each must be in the one line on stderr
	// usage: the command's usage goes to stderr before the line (no arguments where a command is
	// needed, as 'tradebench' alone)
	usage bool
}

// badFiles are made in each case's directory before it runs; the case may name them.
// Files named missing.* or tok are never made.
var badFiles = map[string]string{
	"bad.yaml": "name: bad\nflow:\n  - requst: {name: home, url: /}\n",    // a scenario with a typo
	"bad.ini":  "[CONFIG]\nAgents = many\n",                               // a WSTest config with a bad value
	"bad.json": "{\"schema_version\": \"not a results file\"",             // truncated results
	"pr.yaml":  "currency: EUR\nitems:\n  - {name: server, cost: lots}\n", // a price list with a bad cost
}

func cliCases() []cliCase {
	see := func(cmd string) string { return "see 'tradebench " + cmd + " --help'" }
	var cs []cliCase
	// a wrong flag: every command and subcommand
	for _, cmd := range [][]string{{"run"}, {"drive"}, {"serve"}, {"load"}, {"reset"}, {"audit"}, {"report"}, {"report", "compare"},
		{"client"}, {"agent"}, {"version"}, {"wstest", "serve"}, {"wstest", "drive"}, {"wstest", "configs"},
		{"xmlmark", "gen"}, {"xmlmark", "run"}, {"xmlmark", "configs"}, {"cacheperf", "load"}, {"cacheperf", "serve"}, {"cacheperf", "sweep"}} {
		cs = append(cs, cliCase{args: append(slices.Clone(cmd), "--bogus-flag"), code: exitUsage,
			want: []string{"unknown flag --bogus-flag", see(strings.Join(cmd, " "))}})
	}
	cs = append(cs,
		// the table's rows
		cliCase{args: []string{"run", "--user", "20"}, code: exitUsage, want: []string{"unknown flag --user; did you mean --users? see 'tradebench run --help'"}},
		cliCase{args: []string{"drive", "--url", "http://127.0.0.1:1/", "--durration", "1s"}, code: exitUsage, want: []string{"did you mean --duration?"}},
		cliCase{args: []string{"serve", "--role", "bsl", "--nats-port", "4222"}, code: exitUsage, want: []string{"--nats-port", "async-durable"}},
		cliCase{args: []string{"cacheperf", "load", "--db", "sqlite:cp.db"}, code: exitUsage, want: []string{"19.1GB", "--yes"}},
		cliCase{args: []string{"cacheperf", "sweep"}, code: exitUsage, want: []string{"19.1GB", "--yes"}},
		cliCase{args: []string{"cacheperf", "sweep", "--items", "10", "--keys", "20"}, code: exitUsage, want: []string{"--items: 10 is fewer than the largest key range (4500"}},
		cliCase{args: []string{"nosuch"}, code: exitUsage, want: []string{`unknown command "nosuch"`}},
		cliCase{args: []string{"serv"}, code: exitUsage, want: []string{"did you mean serve?"}},
		cliCase{args: []string{"drive", "--users", "x"}, code: exitUsage, want: []string{`--users "x": not a number`}},
		cliCase{args: []string{"drive", "--keep-connections=maybe"}, code: exitUsage, want: []string{`--keep-connections "maybe": want true or false`}},
		cliCase{args: []string{"xmlmark", "run", "DOM1", "--validation", "lots"}, code: exitUsage, want: []string{`--validation "lots": not a number`}},
	)
	// a duration without its unit: every command with a duration flag
	for _, c := range [][]string{{"run", "-d", "10"}, {"run", "--ramp-up", "5"}, {"drive", "--url", "http://127.0.0.1:1/", "-d", "10"},
		{"wstest", "drive", "--target", "http://127.0.0.1:1", "--duration", "2"}, {"wstest", "drive", "-d", "2"}, {"wstest", "drive", "--think", "1"},
		{"xmlmark", "run", "DOM1", "-d", "2"}, {"cacheperf", "sweep", "--duration", "2"}, {"cacheperf", "serve", "--ttl", "8"},
		{"serve", "--session-ttl", "30"}, {"client", "--call-timeout", "5"}} {
		name, value := c[len(c)-2], c[len(c)-1]
		if name == "-d" {
			name = "--duration" // an alias: the message names the flag it stands for
		}
		cs = append(cs, cliCase{args: c, code: exitUsage, want: []string{name + " " + value + ": a duration needs a unit, e.g. " + value + "s"}})
	}
	// a setting's one check, in its library, reached from the flag that sets it (serve binds its
	// flags to server.Config, whose Web, Services, Remote and Orders parts check themselves)
	cs = append(cs,
		cliCase{args: []string{"serve", "--session-ttl", "30s"}, code: exitUsage, want: []string{"--session-ttl: must be at least 1m0s, got 30s"}},
		cliCase{args: []string{"serve", "--login-max-failures", "-1"}, code: exitUsage, want: []string{"--login-max-failures: must be 0 (no limit) or positive"}},
		cliCase{args: []string{"serve", "--orders-limit", "1001"}, code: exitUsage, want: []string{"--orders-limit: must be between 1 and 1000"}},
		cliCase{args: []string{"serve", "--hash-cost", "99"}, code: exitUsage, want: []string{"--hash-cost: must be a bcrypt cost"}},
		cliCase{args: []string{"serve", "--call-timeout", "-1s"}, code: exitUsage, want: []string{"--call-timeout: must be positive"}},
		cliCase{args: []string{"serve", "--concurrency", "-1"}, code: exitUsage, want: []string{"--concurrency: must be between 1 and 10000"}},
		cliCase{args: []string{"serve", "--stream-limit", "-1"}, code: exitUsage, want: []string{"--stream-limit: must be between 1"}},
		cliCase{args: []string{"cacheperf", "load", "--db", "sqlite:cp.db", "--items", "0"}, code: exitUsage, want: []string{"--items: must be at least 1, got 0"}},
		cliCase{args: []string{"cacheperf", "load", "--db", "sqlite:cp.db", "--size", "8B"}, code: exitUsage, want: []string{"--size: must be between 16B and 1GB"}},
		cliCase{args: []string{"cacheperf", "serve", "--db", "sqlite:cp.db", "--cache-size", "100KB"}, code: exitUsage, want: []string{"--cache-size: must be at least 1MB"}},
		cliCase{args: []string{"cacheperf", "serve", "--db", "sqlite:cp.db", "--ttl", "-1s"}, code: exitUsage, want: []string{"--ttl: must be positive"}},
	)
	// a bad file
	cs = append(cs,
		cliCase{args: []string{"run", "--scenario", "bad.yaml"}, code: exitUsage, want: []string{"--scenario", "bad.yaml", "line 3"}},
		cliCase{args: []string{"run", "--db", "sqlite:/nonexistent/dir/x.db"}, code: exitUsage, want: []string{"/nonexistent/dir does not exist"}},
		cliCase{args: []string{"run", "--out", "nodir/r.json"}, code: exitUsage, want: []string{"--out", "does not exist"}},
		cliCase{args: []string{"drive", "--target", "http://127.0.0.1:1", "--scenario", "bad.yaml"}, code: exitUsage, want: []string{"--scenario", "line 3"}},
		cliCase{args: []string{"drive", "--target", "http://127.0.0.1:1", "--scenario", "missing.yaml"}, code: exitUsage, want: []string{"--scenario", "neither a built-in"}},
		cliCase{args: []string{"drive", "--url", "http://127.0.0.1:1/", "--pricing", "pr.yaml"}, code: exitUsage, want: []string{"--pricing"}},
		cliCase{args: []string{"serve"}, code: exitUsage, want: []string{"no such database", "--load-if-empty"}},
		cliCase{args: []string{"serve", "--db", "sqlite:missing.db"}, code: exitUsage, want: []string{"sqlite:missing.db: no such database"}},
		cliCase{args: []string{"load", "--db", "sqlite:nodir/x.db"}, code: exitUsage, want: []string{"nodir does not exist"}},
		cliCase{args: []string{"reset", "--db", "sqlite:missing.db"}, code: exitUsage, want: []string{"no such database"}},
		cliCase{args: []string{"audit", "--db", "sqlite:missing.db"}, code: exitUsage, want: []string{"no such database"}},
		cliCase{args: []string{"report", "bad.json"}, code: exitUsage, want: []string{"bad.json"}},
		cliCase{args: []string{"report", "compare", "bad.json", "bad.json"}, code: exitUsage, want: []string{"bad.json"}},
		cliCase{args: []string{"client", "--bsl", "127.0.0.1:1", "--service-token-file", "tok"}, code: exitUsage, want: []string{"--service-token-file"}},
		cliCase{args: []string{"wstest", "drive", "--target", "http://127.0.0.1:1", "--config", "bad.ini"}, code: exitUsage, want: []string{"Agents"}},
		cliCase{args: []string{"wstest", "drive", "--target", "http://127.0.0.1:1", "--out", "nodir/w.json"}, code: exitUsage, want: []string{"--out", "does not exist"}},
		cliCase{args: []string{"wstest", "configs", "nosuch"}, code: exitUsage, want: []string{"nosuch"}},
		cliCase{args: []string{"xmlmark", "run", "missing.ini"}, code: exitUsage, want: []string{"missing.ini"}},
		cliCase{args: []string{"xmlmark", "run", "DOM1", "--out", "nodir/x.json"}, code: exitUsage, want: []string{"--out", "does not exist"}},
		cliCase{args: []string{"xmlmark", "configs", "nosuch"}, code: exitUsage, want: []string{"nosuch"}},
		cliCase{args: []string{"xmlmark", "gen", "--out", "nodir/inv.xml"}, code: exitUsage, want: []string{"nodir/inv.xml", "does not exist"}},
		cliCase{args: []string{"cacheperf", "serve", "--db", "sqlite:missing.db"}, code: exitUsage, want: []string{"no such database", "cacheperf load"}},
		cliCase{args: []string{"cacheperf", "sweep", "--quick", "--db", "sqlite:missing.db"}, code: exitUsage, want: []string{"no such database"}},
		cliCase{args: []string{"cacheperf", "sweep", "--quick", "--out", "nodir/c.json"}, code: exitUsage, want: []string{"--out", "does not exist"}},
	)
	// no arguments, for every command that cannot run without them (run, load, cacheperf sweep,
	// wstest serve start real work with their defaults; version, xmlmark gen and the configs
	// lists print what they are for)
	cs = append(cs,
		cliCase{args: nil, code: exitUsage, usage: true},
		cliCase{args: []string{"wstest"}, code: exitUsage, usage: true, want: []string{"missing subcommand"}},
		cliCase{args: []string{"xmlmark"}, code: exitUsage, usage: true, want: []string{"missing subcommand"}},
		cliCase{args: []string{"cacheperf"}, code: exitUsage, usage: true, want: []string{"missing subcommand"}},
		cliCase{args: []string{"drive"}, code: exitUsage, want: []string{"--target is required"}},
		cliCase{args: []string{"report"}, code: exitUsage, want: []string{"want one results file"}},
		cliCase{args: []string{"report", "compare"}, code: exitUsage, want: []string{"two or more"}},
		cliCase{args: []string{"client"}, code: exitUsage, want: []string{"--bsl: is required"}},
		cliCase{args: []string{"agent"}, code: exitUsage, want: []string{"--nats: is required"}},
		cliCase{args: []string{"reset"}, code: exitUsage, want: []string{"no such database"}},
		cliCase{args: []string{"audit"}, code: exitUsage, want: []string{"no such database"}},
		cliCase{args: []string{"wstest", "drive"}, code: exitUsage, want: []string{"--target"}},
		cliCase{args: []string{"xmlmark", "run"}, code: exitUsage, want: []string{"missing the configuration"}},
		cliCase{args: []string{"cacheperf", "load"}, code: exitUsage, want: []string{"--db"}},
		cliCase{args: []string{"cacheperf", "serve"}, code: exitUsage, want: []string{"--db"}},
	)
	return cs
}

// TestCLI runs every case. (Mutants, each seen failing: cliflag.Parse leaving the flag package's
// output on — the help dump makes stderr many lines; cliflag-no-did-you-mean — no "did you mean";
// cliflag-duration-no-hint — "not a number" instead of the unit; exitCode mapping cliflag.ErrUsage to 1; the
// needDB check skipped in serve — exit 1 and a tradebench-work/ left behind; tradejob's scenario
// check skipped — run --scenario bad.yaml makes tradebench-work/ and loads it first.)
func TestCLI(t *testing.T) {
	for _, c := range cliCases() {
		t.Run(strings.Join(append([]string{"tradebench"}, c.args...), " "), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range badFiles {
				if content != "" {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			before := listDir(t, dir)
			r := runIn(t, dir, c.args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", r.code, c.code, r.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if c.usage {
				if !strings.Contains(r.stderr, "usage: tradebench") {
					t.Errorf("no usage on stderr:\n%s", r.stderr)
				}
				lines = lines[len(lines)-1:]
			} else if len(lines) != 1 || r.stderr == "" {
				t.Errorf("stderr has %d lines, want one:\n%s", len(lines), r.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("stderr's line lacks %q:\n%s", w, r.stderr)
				}
			}
			if c.code != exitOK && r.stdout != "" {
				t.Errorf("a failed command wrote to stdout:\n%s", r.stdout)
			}
			if after := listDir(t, dir); !slices.Equal(before, after) {
				t.Errorf("the failed command left files behind: before %v, after %v", before, after)
			}
		})
	}
}

// runIn runs tradebench with args in dir.
func runIn(t *testing.T, dir string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), smokeTimeout)
	defer cancel()
	cmd := smokeCmd(ctx, dir, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("tradebench %v: %v", args, err)
	}
	return r
}

// listDir is every path under dir, sorted.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		paths = append(paths, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(paths)
	return paths
}

// TestExitCodeTable: the one table maps each library's typed error, wrapped or joined, to its
// status, and the more serious reason wins. (Mutant: swap the audit and threshold cases — the
// joined error exits 3.)
func TestExitCodeTable(t *testing.T) {
	for _, c := range exitCases() {
		if got := exitCode(c.err); got != c.code {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.code)
		}
	}
}

type exitCase struct {
	name string
	err  error
	code int
}

func exitCases() []exitCase {
	tf := &report.ThresholdsFailed{Failed: []report.ThresholdResult{{Name: "max_error_rate"}}}
	af := &audit.Failed{Violations: 1}
	lost := &driver.AgentsLostError{Lost: []string{"a1"}}
	return []exitCase{
		{"nil", nil, exitOK},
		{"--help", flag.ErrHelp, exitOK},
		{"an error of the run", errors.New("disk full"), exitInternal},
		{"a bad flag", cliflag.Errorf("--users must be at least 1"), exitUsage},
		{"a configuration field's bad value", fmt.Errorf("start: %w", setting.Errorf("OrdersLimit", "must be at most 100000")), exitUsage},
		{"a drive that cannot run as configured", fmt.Errorf("drive: %w", &driver.UsageError{Err: errors.New("too many users")}), exitUsage},
		{"thresholds", fmt.Errorf("run: %w", tf), exitThresholds},
		{"a memory ceiling", &cacheperfjob.CeilingExceeded{}, exitThresholds},
		{"the audit", af, exitAudit},
		{"lost agents", lost, exitAgentsLost},
		{"thresholds and the audit", errors.Join(tf, af), exitAudit},
		{"the audit and lost agents", errors.Join(af, lost), exitAgentsLost},
		{"a bad flag and thresholds", errors.Join(tf, cliflag.Errorf("--out")), exitUsage},
		{"an invalid run", fmt.Errorf("run: %w", &report.InvalidError{}), exitInvalid},
		{"an invalid run that also missed thresholds", errors.Join(tf, &report.InvalidError{}), exitInvalid},
		{"the audit of an invalid run", errors.Join(af, &report.InvalidError{}), exitAudit},
		{"lost agents of an invalid run", errors.Join(&report.InvalidError{}, lost), exitAgentsLost},
		{"a target refused by the preflight", fmt.Errorf("drive: %w", &driver.PreflightError{Err: errors.New("connection refused")}), exitUsage},
		{"a target that is not conformant", fmt.Errorf("verify: %w", &report.NotConformant{Target: "http://x"}), exitNotConform},
	}
}
