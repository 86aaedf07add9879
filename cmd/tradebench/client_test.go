package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/trade/dataset"
	"github.com/tradebench/tradebench/trade/server"
)

const clientTestToken = "client-test-service-token-0123456789"

// startServices runs a web tier and a services host (not the monolith, whose token is its
// own) over a small data set, as `serve --role web,bsl` does.
func startServices(t *testing.T) *server.Server {
	t.Helper()
	spec := dataset.DefaultSpec()
	spec.Accounts, spec.Quotes = 20, 50
	cfg := server.DefaultConfig()
	cfg.Roles = server.Roles{Web: true, BSL: true}
	cfg.DB = "sqlite:" + filepath.Join(t.TempDir(), "client.db")
	cfg.Listen = "127.0.0.1:0"
	cfg.LoadIfEmpty = &spec
	cfg.ServiceToken = clientTestToken
	cfg.Logger = slog.New(slog.DiscardHandler)
	s, err := server.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// tbEnv runs tradebench with extra environment variables.
func tbEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), smokeTimeout)
	defer cancel()
	cmd := smokeCmd(ctx, t.TempDir(), args...)
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func bslAddr(s *server.Server, access string) string {
	if access == "grpc" {
		return s.Host().GRPCAddr()
	}
	return s.Host().HTTPAddr()
}

// TestClientBatchEveryTransport: --batch prints each screen over SOAP, REST and gRPC against a
// real services host, and the three transports print the same portfolio.
func TestClientBatchEveryTransport(t *testing.T) {
	s := startServices(t)
	env := []string{"TRADEBENCH_SERVICE_TOKEN=" + clientTestToken}
	var portfolios []string
	for _, access := range []string{"soap", "rest", "grpc"} {
		for _, screen := range []string{"home", "portfolio", "quotes", "account"} {
			r := tbEnv(t, env, "client", "--access", access, "--bsl", bslAddr(s, access), "--batch", screen, "--uid", "uid:4", "--password", "xxx", "--symbols", "s:1,s:2")
			if r.code != 0 {
				t.Fatalf("%s %s: exit %d: %s", access, screen, r.code, r.stderr)
			}
			want := map[string][]string{
				"home":      {"HOME — uid:4", "Cash balance", "Market summary", "TSIA"},
				"portfolio": {"PORTFOLIO — 5 holdings", "Gain/(loss)", "Total: basis"},
				"quotes":    {"QUOTES", "s:1 ", "s:2 "},
				"account":   {"ACCOUNT — uid:4", "Recent orders", "completed"},
			}[screen]
			for _, w := range want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("%s %s: output lacks %q:\n%s", access, screen, w, r.stdout)
				}
			}
			if screen == "portfolio" {
				portfolios = append(portfolios, r.stdout)
			}
		}
	}
	if portfolios[0] != portfolios[1] || portfolios[1] != portfolios[2] {
		t.Errorf("transports disagree on the portfolio:\nsoap:\n%s\nrest:\n%s\ngrpc:\n%s", portfolios[0], portfolios[1], portfolios[2])
	}
}

// TestClientBadInput: a bad --access, an unreachable host and a missing token are exit 2 with
// a message naming the flag; a wrong password is exit 1 with the service's message.
func TestClientBadInput(t *testing.T) {
	s := startServices(t)
	env := []string{"TRADEBENCH_SERVICE_TOKEN=" + clientTestToken}
	cases := []struct {
		name string
		env  []string
		args []string
		code int
		want string
	}{
		{"bad access", env, []string{"--access", "corba", "--bsl", bslAddr(s, "rest")}, 2, "--access"},
		{"no bsl", env, []string{"--access", "rest"}, 2, "--bsl: is required"},
		{"unreachable", env, []string{"--access", "grpc", "--bsl", "127.0.0.1:1", "--batch", "home", "--password", "xxx"}, 2, "does not answer"},
		{"no token", []string{"TRADEBENCH_SERVICE_TOKEN="}, []string{"--access", "rest", "--bsl", bslAddr(s, "rest"), "--batch", "home", "--password", "xxx"}, 2, "token"},
		{"bad screen", env, []string{"--access", "rest", "--bsl", bslAddr(s, "rest"), "--batch", "nope", "--password", "xxx"}, 2, "--batch"},
		{"wrong password", env, []string{"--access", "soap", "--bsl", bslAddr(s, "soap"), "--batch", "home", "--uid", "uid:1", "--password", "nope"}, 1, "wrong user id or password"},
	}
	for _, c := range cases {
		r := tbEnv(t, c.env, append([]string{"client"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d mentioning %q", c.name, r.code, r.stderr, c.code, c.want)
		}
	}
}

// tmuxSession drives a program in a detached tmux session on a private server socket.
type tmuxSession struct {
	t      *testing.T
	socket string
}

func (m *tmuxSession) run(args ...string) string {
	m.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", m.socket}, args...)...).CombinedOutput()
	if err != nil {
		m.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

func (m *tmuxSession) keys(keys ...string) {
	m.run(append([]string{"send-keys", "-t", "tb"}, keys...)...)
}

func (m *tmuxSession) screen() string { return m.run("capture-pane", "-p", "-t", "tb") }

// wait returns the screen once it contains all of want, or fails with the last screen.
func (m *tmuxSession) wait(what string, want ...string) string {
	m.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var sc string
	for time.Now().Before(deadline) {
		sc = m.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(sc, w) {
				ok = false
			}
		}
		if ok {
			return sc
		}
		time.Sleep(100 * time.Millisecond)
	}
	m.t.Fatalf("%s: the screen never showed %q:\n%s", what, want, sc)
	return ""
}

// TestClientInteractiveInTmux drives the terminal UI like a user: login → quotes (with a live
// update from a buy made elsewhere) → buy with confirmation → portfolio. Set
// TRADEBENCH_CLIENT_CAPTURE=DIR to keep the screens as text (docs/).
func TestClientInteractiveInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed: CI installs it (.ci/run); the interactive client is tested in it")
		}
		t.Skip("tmux is not installed")
	}
	s := startServices(t)
	ctx := context.Background()
	m := &tmuxSession{t: t, socket: "tbclient-" + strconv.Itoa(os.Getpid())}
	cmd := fmt.Sprintf("env %s=1 TRADEBENCH_SERVICE_TOKEN=%s %s client --access grpc --bsl %s --stream %s --uid uid:3 --symbols s:1,s:2,s:3",
		smokeMainEnv, clientTestToken, os.Args[0], s.Host().GRPCAddr(), s.URL())
	m.run("new-session", "-d", "-s", "tb", "-x", "110", "-y", "36", cmd)
	t.Cleanup(func() { exec.Command("tmux", "-L", m.socket, "kill-server").Run() })
	capture := func(name, screen string) {
		if dir := os.Getenv("TRADEBENCH_CLIENT_CAPTURE"); dir != "" {
			os.WriteFile(filepath.Join(dir, name+".txt"), []byte(screen), 0o644)
		}
	}

	capture("login", m.wait("login screen", "LOGIN", "User ID", "Tab next field"))
	m.keys("Tab")
	m.keys("-l", "xxx")
	m.keys("Enter")
	capture("home", m.wait("home", "HOME — uid:3", "Market summary", "h home · p portfolio · q quotes"))

	m.keys("q")
	m.wait("quotes", "QUOTES", "s:1 ", "s:3 ")
	for deadline := time.Now().Add(20 * time.Second); s.QuoteStreams().Subscribers < 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the client never subscribed to the quote stream")
		}
	}
	// a buy made elsewhere reaches the screen through the stream, with no key pressed
	before, err := s.Service().GetQuote(ctx, "s:2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Service().Buy(ctx, "uid:9", "s:2", 3); err != nil {
		t.Fatal(err)
	}
	capture("quotes", m.wait("live quote", " "+strconv.FormatInt(before.Volume+3, 10)))

	m.keys("Down") // s:2 selected
	m.keys("b")
	m.wait("buy form", "BUY", "[s:2]", "Quantity")
	m.keys("BSpace", "BSpace", "BSpace")
	m.keys("-l", "7")
	m.keys("Enter")
	capture("confirm", m.wait("confirmation", "Buy 7 shares of s:2", "y/n"))
	m.keys("y")
	m.wait("bought", "Bought 7 s:2", "closed")

	m.keys("p")
	sc := m.wait("portfolio", "PORTFOLIO — 6 holdings", "s:2 ")
	capture("portfolio", sc)
	found := false
	for line := range strings.SplitSeq(sc, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[1] == "s:2" && f[2] == "7" {
			found = true
		}
	}
	if !found {
		t.Fatalf("the portfolio lacks the 7 shares of s:2 just bought:\n%s", sc)
	}
	// a service error shows in the status line and the client keeps running
	m.keys("b")
	m.wait("buy form", "BUY")
	m.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace")
	m.keys("-l", "nosuch")
	m.keys("Tab", "Enter")
	m.wait("confirmation", "Buy 100 shares of nosuch")
	m.keys("y")
	m.wait("error in status line", "ERROR:", "nosuch")
	m.keys("Escape") // alone: Escape followed at once by a key reads as Alt+key in a terminal
	m.wait("back from the form", "PORTFOLIO")
	m.keys("h")
	m.wait("still running", "HOME — uid:3")
	m.keys("C-c")

	h, err := s.Service().GetHoldings(ctx, "uid:3")
	if err != nil || len(h) != 6 {
		t.Fatalf("uid:3 holdings after the session: %d, %v", len(h), err)
	}
}

// TestDriveClientScenario: `drive --scenario client` drives the services directly over each
// transport and reports one transaction per screen, none failed, with stream subscribers on the
// web tier measuring delivery of the quotes its buys move.
func TestDriveClientScenario(t *testing.T) {
	s := startServices(t)
	env := []string{"TRADEBENCH_SERVICE_TOKEN=" + clientTestToken}
	for _, access := range []string{"soap", "rest", "grpc"} {
		out := filepath.Join(t.TempDir(), "res.json")
		r := tbEnv(t, env, "drive", "--scenario", "client", "--access", access, "--bsl", bslAddr(s, access),
			"--set", "users=20", "--set", "quotes=50", "--users", "4", "--think", "0", "-d", "1s", "--progress", "off",
			"--target", s.URL(), "--stream-subscribers", "3", "--max-error-rate", "0", "--out", out)
		if r.code != 0 {
			t.Fatalf("%s: exit %d:\n%s\n%s", access, r.code, r.stdout, r.stderr)
		}
		for _, tx := range []string{"login", "home", "quotes", "buy", "portfolio", "sell", "account", "logout", "stream: 3 subscribers"} {
			if !strings.Contains(r.stdout, tx) {
				t.Errorf("%s: the summary lacks %q:\n%s", access, tx, r.stdout)
			}
		}
		data, err := os.ReadFile(out)
		if err != nil || !strings.Contains(string(data), `"workload": "smart-client"`) || !strings.Contains(string(data), `"delivery"`) {
			t.Errorf("%s: results file: %v\n%.600s", access, err, data)
		}
	}
	r := tbEnv(t, env, "drive", "--scenario", "client", "--access", "rest", "--bsl", bslAddr(s, "rest"), "--set", "users=2", "--users", "3", "-d", "1s")
	if r.code != 2 || !strings.Contains(r.stderr, "--users") {
		t.Errorf("more users than accounts: exit %d, %s", r.code, r.stderr)
	}
}
