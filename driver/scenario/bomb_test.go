package scenario

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// aliasBomb is a "billion laughs" scenario: 9 levels of 9 aliases, 711 bytes that expand to
// 10^9 nodes.
const aliasBomb = `name: bomb
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
flow:
  - request: {name: x, url: /}
`

// TestYAMLAliasBombRefused is finding 5 of issue 35: a 711-byte scenario of nested aliases took
// drive past 60 s and 1.8 GiB (and it ignored SIGTERM meanwhile). Now the document's size with
// its aliases expanded is bounded before it is decoded, and the file is refused at once. The
// parse runs in a child process so the peak RSS is its own; the minute only turns a hang (the
// mutant) into a failure. Mutant: yaml-alias-budget-off.
func TestYAMLAliasBombRefused(t *testing.T) {
	if os.Getenv("TB_YAML_BOMB") == "1" {
		_, err := Parse("bomb.yaml", []byte(aliasBomb), Options{})
		fmt.Println("parse:", err)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^TestYAMLAliasBombRefused$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TB_YAML_BOMB=1", "GOMEMLIMIT=1GiB")
	out, _ := cmd.CombinedOutput()
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	t.Logf("peak RSS %d MiB: %s", rss>>20, strings.TrimSpace(string(out)))
	if !strings.Contains(string(out), "alias bomb") {
		t.Errorf("the alias bomb was not refused as one:\n%s", out)
	}
	if rss > 200<<20 {
		t.Errorf("parsing the alias bomb peaked at %d MiB (bound 200 MiB)", rss>>20)
	}
}

// TestYAMLDepthBounded: a scenario nested past the depth bound is refused before decoding.
func TestYAMLDepthBounded(t *testing.T) {
	deep := "name: d\nx: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\nflow:\n  - request: {name: x, url: /}\n"
	if _, err := Parse("deep.yaml", []byte(deep), Options{}); err == nil || !strings.Contains(err.Error(), "nested too deep") {
		t.Errorf("a scenario 200 deep: %v", err)
	}
}

// TestEmptyRequestRefused: "request:" with nothing after it compiled to a nil request and
// panicked the compiler (found by FuzzParse; its input is kept as a seed in
// testdata/fuzz/FuzzParse). It is refused, naming its line. Mutant: scenario-empty-request-panics.
func TestEmptyRequestRefused(t *testing.T) {
	_, err := Parse("s.yaml", []byte("name: s\nflow:\n  - request:\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), "line 3: request: is empty") {
		t.Errorf("an empty request step: %v", err)
	}
}
