package cliflag

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
)

// testSet is a command's flags as the kit's load commands have them: a count with a one-letter
// alias, durations, a boolean, a string, a renamed flag and a value of its own syntax.
type testSet struct {
	fs       *flag.FlagSet
	users    int
	duration time.Duration
	rampUp   time.Duration
	keep     bool
	header   string
	think    thinkish
}

// thinkish is a UnitValue like --think: durations in a syntax of its own (fixed:1s).
type thinkish struct{ d time.Duration }

// String is "" for none, as --think's default: not a duration default, so only NeedsUnit gives the hint.
func (t *thinkish) String() string {
	if t.d == 0 {
		return ""
	}
	return t.d.String()
}
func (t *thinkish) NeedsUnit() bool { return true }
func (t *thinkish) Set(s string) error {
	d, err := time.ParseDuration(strings.TrimPrefix(s, "fixed:"))
	if err != nil {
		return fmt.Errorf("%q is not a think time (use 1s or fixed:1s)", s)
	}
	t.d = d
	return nil
}

func newTestSet() *testSet {
	s := &testSet{fs: NewFlagSet("prog cmd", "[flags]")}
	s.fs.IntVar(&s.users, "users", 1, "virtual users")
	s.fs.DurationVar(&s.duration, "duration", time.Minute, "steady state")
	s.fs.DurationVar(&s.rampUp, "ramp-up", 0, "ramp-up")
	s.fs.BoolVar(&s.keep, "keep-connections", false, "keep connections")
	s.fs.StringVar(&s.header, "H", "", "a header")
	s.fs.Var(&s.think, "think", "think time")
	Alias(s.fs, "users", "c", "threads")
	Alias(s.fs, "duration", "d", "steady")
	return s
}

// TestJoinedShortFlags: wrk's -c50 and -d30s are a one-letter flag with its value joined, a
// flag's value that looks like one is left alone, and after -- nothing is rewritten. Mutant:
// cliflag-joined-off (Parse without joinedShortFlags: "unknown flag --c50").
func TestJoinedShortFlags(t *testing.T) {
	s := newTestSet()
	if err := Parse(s.fs, []string{"-c50", "-d30s", "-HAccept:x", "-H", "-c7", "--", "-c9"}, true); err != nil {
		t.Fatal(err)
	}
	if s.users != 50 || s.duration != 30*time.Second || s.header != "-c7" {
		t.Errorf("users %d, duration %v, header %q; want 50, 30s, -c7", s.users, s.duration, s.header)
	}
	if got := s.fs.Args(); len(got) != 1 || got[0] != "-c9" {
		t.Errorf("args after --: %q, want [-c9]", got)
	}
}

// TestParseMistakesAreOneLine: every mistake is one usage error (wrapping ErrUsage) that says
// what is wrong with a hint and where the help is. Mutants: cliflag-no-did-you-mean (nearestFlag
// offered no flag), cliflag-duration-no-hint (isDurationFlag false: "not a number" for a
// duration), cliflag-alias-named-old (the message names -d, not --duration), cliflag-unit-ignored
// (--think 1 without the hint).
func TestParseMistakesAreOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--user", "3"}, "unknown flag --user; did you mean --users? see 'prog cmd --help'"},
		{[]string{"--durration", "1s"}, "unknown flag --durration; did you mean --duration?"},
		{[]string{"--ramp", "1s"}, "did you mean --ramp-up?"}, // a prefix
		{[]string{"--zzzzzzzz"}, "unknown flag --zzzzzzzz; see 'prog cmd --help'"},
		{[]string{"--steddy", "1s"}, "unknown flag --steddy; see"}, // a hidden alias (--steady) is never suggested
		{[]string{"--duration", "10"}, "--duration 10: a duration needs a unit, e.g. 10s or 10ms; see 'prog cmd --help'"},
		{[]string{"-d", "10"}, "--duration 10: a duration needs a unit"},
		{[]string{"--steady", "soon"}, `--duration "soon": not a duration (e.g. 10s, 1m30s, 500ms)`},
		{[]string{"--think", "1"}, "--think 1: a duration needs a unit, e.g. 1s"},
		{[]string{"--think", "often"}, `--think "often": "often" is not a think time`},
		{[]string{"--users", "x"}, `--users "x": not a number; see 'prog cmd --help'`},
		{[]string{"-c", "x"}, `--users "x": not a number`},
		{[]string{"--keep-connections=maybe"}, `--keep-connections "maybe": want true or false`},
		{[]string{"--users"}, "--users needs a value; see 'prog cmd --help'"},
		{[]string{"stray"}, `unexpected argument "stray" (flags go before it?); see 'prog cmd --help'`},
	} {
		err := Parse(newTestSet().fs, tc.args, false)
		if !errors.Is(err, ErrUsage) {
			t.Errorf("%q: %v, want a usage error", tc.args, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
			t.Errorf("%q:\n got %q\nwant one line with %q", tc.args, msg, tc.want)
		}
	}
	if err := Parse(newTestSet().fs, []string{"stray"}, true); err != nil {
		t.Errorf("a positional argument where allowed: %v", err)
	}
}

// TestAliasIsTheFlag: an old name sets the flag's own variable, is reported as the flag it
// stands for, and is not listed in the help. Mutants: cliflag-given-old-name (Given reports
// --threads, so a default would override what the user gave), cliflag-help-lists-aliases
// (PrintFlags printing every flag: the help lists -threads).
func TestAliasIsTheFlag(t *testing.T) {
	s := newTestSet()
	if err := Parse(s.fs, []string{"--threads", "4", "--steady", "2s"}, false); err != nil {
		t.Fatal(err)
	}
	if s.users != 4 || s.duration != 2*time.Second {
		t.Errorf("users %d, duration %v: the aliases did not set the flags", s.users, s.duration)
	}
	given := Given(s.fs)
	if !given["users"] || !given["duration"] || given["threads"] || given["ramp-up"] {
		t.Errorf("Given = %v, want users and duration by their names", given)
	}
	var help bytes.Buffer
	s.fs.SetOutput(&help)
	s.fs.Usage()
	if !strings.Contains(help.String(), "usage: prog cmd [flags]") || !strings.Contains(help.String(), "-users") {
		t.Errorf("help lacks the usage line or --users:\n%s", help.String())
	}
	for _, old := range []string{"-threads", "-steady", "  -c ", "  -d "} {
		if strings.Contains(help.String(), old) {
			t.Errorf("help lists the hidden alias %s:\n%s", old, help.String())
		}
	}
	SetHelp(s.fs, "what the command does\n\nflags:\n")
	help.Reset()
	s.fs.Usage()
	if !strings.HasPrefix(help.String(), "what the command does\n\nflags:\n  -H string") {
		t.Errorf("SetHelp: help is\n%s", help.String())
	}
}

// TestProgress: --progress takes auto, on or off; the old --quiet is --progress off; off writes
// nowhere. Mutant: cliflag-quiet-noop (--quiet leaves progress on).
func TestProgress(t *testing.T) {
	for _, tc := range []struct {
		args []string
		mode string
	}{{nil, "auto"}, {[]string{"--progress", "on"}, "on"}, {[]string{"--quiet"}, "off"}, {[]string{"--quiet=false"}, "auto"}} {
		fs := NewFlagSet("prog", "")
		p := AddProgress(fs)
		if err := Parse(fs, tc.args, false); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if p.String() != tc.mode {
			t.Errorf("%q: mode %q, want %q", tc.args, p, tc.mode)
		}
		if w, tty := p.Writer(); (w == nil) != (tc.mode == "off") || tc.mode == "on" && tty {
			t.Errorf("%q: writer %v (tty %v)", tc.args, w, tty)
		}
	}
	err := Parse(AddProgressSet(), []string{"--progress", "loud"}, false)
	if err == nil || !strings.Contains(err.Error(), `--progress "loud": want auto, on or off`) {
		t.Errorf("--progress loud: %v", err)
	}
}

// AddProgressSet is a flag set with only --progress.
func AddProgressSet() *flag.FlagSet {
	fs := NewFlagSet("prog", "")
	AddProgress(fs)
	return fs
}

// TestOptBoolAndKV: an OptBool knows it was given (even as false); a KV collects repeated
// name=value pairs and refuses one without a name. Mutant: cliflag-optbool-unset (Set not
// marking IsSet).
func TestOptBoolAndKV(t *testing.T) {
	fs := NewFlagSet("prog", "")
	var keep, other OptBool
	set := KV{}
	fs.Var(&keep, "keep", "")
	fs.Var(&other, "other", "")
	fs.Var(set, "set", "")
	if err := Parse(fs, []string{"--keep=false", "--set", "users=5", "--set", " quotes =1=2", "--set", "users=7"}, false); err != nil {
		t.Fatal(err)
	}
	if !keep.IsSet || keep.V || other.IsSet {
		t.Errorf("keep %+v other %+v: want keep given false, other not given", keep, other)
	}
	if len(set) != 2 || set["users"] != "7" || set["quotes"] != "1=2" {
		t.Errorf("set = %v", set)
	}
	err := Parse(fs, []string{"--set", "=5"}, false)
	if err == nil || !strings.Contains(err.Error(), `--set "=5": want name=value`) {
		t.Errorf("--set =5: %v", err)
	}
}

// TestNames: a component's *setting.Error is reported by the flag that set the field; With
// adds a shared part's names (the command's own win); OrUsage leaves other errors alone.
// Mutant: cliflag-names-unmapped (Flag finding no field: "Users: must…" instead of --users).
func TestNames(t *testing.T) {
	phases := Names{"Users": "users", "Duration": "duration"}
	names := Names{"Target": "target", "Duration": "steady"}.With(phases)
	bad := fmt.Errorf("drive: %w", setting.Errorf("Users", "must be at least 1, got 0"))
	if err := names.UsageError(bad); !errors.Is(err, ErrUsage) || !strings.HasSuffix(err.Error(), ": --users: must be at least 1, got 0") {
		t.Errorf("UsageError = %v", err)
	}
	if err := names.UsageError(setting.Errorf("Duration", "must be positive")); !strings.HasSuffix(err.Error(), "--steady: must be positive") {
		t.Errorf("the command's own name lost to the shared part's: %v", err)
	}
	if err := names.UsageError(setting.Errorf("Nowhere", "bad")); !errors.Is(err, ErrUsage) || !strings.HasSuffix(err.Error(), "Nowhere: bad") {
		t.Errorf("a field without a flag: %v", err)
	}
	run := errors.New("connection refused")
	if err := names.OrUsage(run); err != run {
		t.Errorf("OrUsage changed an error of the run: %v", err)
	}
	if err := names.OrUsage(bad); !errors.Is(err, ErrUsage) {
		t.Errorf("OrUsage left a setting error with a flag unmapped: %v", err)
	}
	if len(phases) != 2 {
		t.Errorf("With changed its argument: %v", phases)
	}
}

// TestRunSubcommand: the named subcommand runs with the rest of the arguments; a missing or
// unknown one is a usage error naming the choices.
func TestRunSubcommand(t *testing.T) {
	var got []string
	subs := []Subcommand{
		{Name: "serve", Run: func(_ context.Context, args []string) error { got = args; return nil }},
		{Name: "drive", Run: func(context.Context, []string) error { return errors.New("ran drive") }},
	}
	if err := RunSubcommand(context.Background(), []string{"serve", "--x", "1"}, "usage\n", subs...); err != nil || strings.Join(got, " ") != "--x 1" {
		t.Errorf("serve: %v, args %q", err, got)
	}
	if err := RunSubcommand(context.Background(), []string{"drive"}, "usage\n", subs...); err == nil || err.Error() != "ran drive" {
		t.Errorf("drive: %v", err)
	}
	err := RunSubcommand(context.Background(), []string{"srve"}, "usage\n", subs...)
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `unknown subcommand "srve" (want serve or drive)`) {
		t.Errorf("srve: %v", err)
	}
}

// TestSize: a size flag reads 500KB as bytes, shows its default as written, and a fraction is
// refused naming the flag. Mutant: cliflag-size-ignored (Set leaving N alone: --size keeps
// its default).
func TestSize(t *testing.T) {
	fs := NewFlagSet("prog", "")
	size := AddSize(fs, "size", 1<<20, "blob size")
	if def := fs.Lookup("size").DefValue; def != "1MB" {
		t.Errorf("default shown as %q, want 1MB", def)
	}
	if err := Parse(fs, []string{"--size", "500KB"}, false); err != nil || size.N != 500<<10 {
		t.Errorf("--size 500KB: %d, %v; want %d", size.N, err, 500<<10)
	}
	err := Parse(fs, []string{"--size", "1.5MB"}, false)
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `--size "1.5MB": size "1.5MB": want a whole number`) {
		t.Errorf("--size 1.5MB: %v", err)
	}
}

// TestFraction: a share is read as a fraction or a percentage, bounded, and its default shown as
// a percentage; a bad one names the flag and changes nothing. Mutant: cliflag-percent-not-divided
// (1% read as 1: refused as above 100%).
func TestFraction(t *testing.T) {
	fs := NewFlagSet("prog", "")
	rate, variation := 0.01, 0.2
	FractionVar(fs, &rate, "rule-errors", 1, "")
	FractionVar(fs, &variation, "rule-tps-variation", math.Inf(1), "")
	if def := fs.Lookup("rule-errors").DefValue; def != "1%" {
		t.Errorf("default shown as %q, want 1%%", def)
	}
	if err := Parse(fs, []string{"--rule-errors", "5%", "--rule-tps-variation", "150%"}, false); err != nil || rate != 0.05 || variation != 1.5 {
		t.Errorf("5%% and 150%%: rate %v, variation %v, %v", rate, variation, err)
	}
	for _, bad := range [][]string{{"--rule-errors", "2"}, {"--rule-errors", "-1%"}, {"--rule-errors", "lots"}, {"--rule-errors", "NaN"}, {"--rule-tps-variation", "-0.1"}} {
		err := Parse(fs, bad, false)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), bad[0]+` "`) || rate != 0.05 || variation != 1.5 {
			t.Errorf("%q: %v (rate %v, variation %v)", bad, err, rate, variation)
		}
	}
	if v, err := ParseFraction("0.01%", 1); err != nil || v != 0.0001 {
		t.Errorf("ParseFraction(0.01%%) = %v, %v", v, err)
	}
}

// TestLists: a repeatable flag keeps every value in order, a comma list drops blanks, and a list
// of counts refuses a bad item naming the flag and changing nothing. Mutant: cliflag-ints-zero
// (a count of 0 accepted).
func TestLists(t *testing.T) {
	fs := NewFlagSet("prog", "")
	var headers List
	keys := []int{500, 1000}
	fs.Var(&headers, "H", "")
	IntsVar(fs, &keys, "keys", "")
	if def := fs.Lookup("keys").DefValue; def != "500,1000" {
		t.Errorf("default shown as %q", def)
	}
	if err := Parse(fs, []string{"-H", "A: 1", "-HB: 2", "--keys", " 10, 20 ,,30"}, false); err != nil {
		t.Fatal(err)
	}
	if strings.Join(headers, "|") != "A: 1|B: 2" || fmt.Sprint(keys) != "[10 20 30]" {
		t.Errorf("headers %q, keys %v", headers, keys)
	}
	for _, bad := range []string{"10,0", "10,x", "-5"} {
		err := Parse(fs, []string{"--keys", bad}, false)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--keys ") || !strings.Contains(err.Error(), "is not a whole number of at least 1") || fmt.Sprint(keys) != "[10 20 30]" {
			t.Errorf("--keys %s: %v (keys now %v)", bad, err, keys)
		}
	}
	if got := SplitList(" s:1, ,s:2,"); fmt.Sprint(got) != "[s:1 s:2]" || SplitList(" , ") != nil {
		t.Errorf("SplitList = %q", got)
	}
}

// TestHostPort: a listen address is host:port with a numeric port, or empty; anything else is
// refused naming the flag, and the address stays as it was. Mutant: cliflag-hostport-unchecked
// (Set storing whatever it is given).
func TestHostPort(t *testing.T) {
	fs := NewFlagSet("prog", "")
	addr := ""
	HostPortVar(fs, &addr, "metrics-listen", "")
	for _, good := range []string{"127.0.0.1:9464", ":0", "[::1]:80", ""} {
		if err := Parse(fs, []string{"--metrics-listen", good}, false); err != nil || addr != good {
			t.Errorf("--metrics-listen %q: %v (addr %q)", good, err, addr)
		}
	}
	addr = "127.0.0.1:1"
	for _, bad := range []string{"9465", "localhost", "127.0.0.1:http", "127.0.0.1:70000"} {
		err := Parse(fs, []string{"--metrics-listen", bad}, false)
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--metrics-listen "+strconv.Quote(bad)+": want host:port") || addr != "127.0.0.1:1" {
			t.Errorf("--metrics-listen %q: %v (addr %q)", bad, err, addr)
		}
	}
}

// TestPeerToolFlags: wrk's, hey's and k6's flags typed by habit get what to give here instead
// of a far-fetched did-you-mean (k6's --vus got "did you mean --out?", wrk's -t2 "unknown flag
// --t2"), and only where the command has the counterpart the hint names.
// Mutant: cliflag-no-peer-hints (peerHint finds nothing).
func TestPeerToolFlags(t *testing.T) {
	newSet := func() *flag.FlagSet {
		fs := NewFlagSet("prog drive", "[flags]")
		fs.Int("users", 10, "virtual users")
		Alias(fs, "users", "c")
		fs.Duration("duration", time.Minute, "steady state")
		fs.Int("iterations", 0, "per user")
		fs.Float64("rate", 0, "open model")
		fs.String("out", "", "results")
		return fs
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-t2", "-c50"}, "unknown flag -t2 (wrk's threads): it has no counterpart here: each connection (-c) has its own goroutine; leave it out; see 'prog drive --help'"},
		{[]string{"-t", "2"}, "unknown flag -t (wrk's threads)"},
		{[]string{"--vus", "10"}, "unknown flag --vus (k6's virtual users): give --users (-c)"},
		{[]string{"-n", "200"}, "(hey's request count): give a duration (-d 30s) or each user's --iterations"},
		{[]string{"-n200"}, "(hey's request count)"},
		{[]string{"-z", "10s"}, "(hey's duration): give -d (--duration)"},
		{[]string{"--rps", "100"}, "(hey and vegeta's requests per second): give --rate"},
		{[]string{"-q", "10"}, "(hey's per-worker rate): give --rate"},
	} {
		err := Parse(newSet(), tc.args, false)
		if msg := fmt.Sprint(err); !errors.Is(err, ErrUsage) || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
			t.Errorf("%q:\n got %q\nwant one line with %q", tc.args, msg, tc.want)
		}
	}
	// a command without the counterpart gets no hint pointing at a flag it lacks
	fs := NewFlagSet("prog load", "[flags]")
	fs.Int("accounts", 0, "accounts")
	if err := Parse(fs, []string{"--vus", "3"}, false); strings.Contains(fmt.Sprint(err), "k6") {
		t.Errorf("--vus on a command without --users: %v", err)
	}
}
