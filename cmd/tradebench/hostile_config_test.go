package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// runRSS runs tradebench with args in dir as a child process and returns how it ended and its
// peak resident memory (rusage Maxrss: what the kernel counted, whatever the machine's speed).
func runRSS(t *testing.T, dir string, args ...string) (result, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), smokeTimeout)
	defer cancel()
	cmd := smokeCmd(ctx, dir, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("tradebench %v: %v", args, err)
	}
	r.code = cmd.ProcessState.ExitCode()
	return r, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
}

// nestedJSON is a JSON object depth deep, with long keys (3,000 deep: about 340 KB).
func nestedJSON(depth int) string {
	key := `"` + strings.Repeat("k", 105) + `":`
	return strings.Repeat("{"+key, depth) + "1" + strings.Repeat("}", depth)
}

// TestNestedDocumentsBounded is finding 1 of issue 35: a target's /trade/config.json 3,000
// deep (340 KB) was kept by the preflight and flattened by the report, repeating every parent
// key per line: a 3-second drive grew to 2.2 GiB and wrote a 455 MB report, and the same file
// given to 'report' took 2.2 GiB. Now the preflight refuses the document (depth bound, read
// bounded to 1 MiB), every results file is depth-checked before decoding, and the report's
// flattening is bounded. The driver and the report run as child processes whose peak RSS must
// stay under 300 MB. Mutants: preflight-config-depth-off (the preflight keeps a deep document),
// results-depth-off (report decodes a deep results file).
func TestNestedDocumentsBounded(t *testing.T) {
	deep := nestedJSON(3000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/trade/config.json" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, deep)
			return
		}
		fmt.Fprint(w, "Welcome")
	}))
	defer srv.Close()
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("name: s\nflow:\n  - request: {name: home, url: /, check: {contains: Welcome}}\n"), 0o644)
	r, rss := runRSS(t, dir, "drive", "--target", srv.URL, "--scenario", scen, "--users", "1", "-d", "1s", "--ramp-up", "0s", "--ramp-down", "0s", "--progress", "off", "--out", "r.json")
	t.Logf("drive: exit %d, peak RSS %d MiB", r.code, rss>>20)
	if r.code != exitOK {
		t.Fatalf("drive: exit %d\n%s", r.code, r.stderr)
	}
	if rss > 300<<20 {
		t.Errorf("drive against a 3,000-deep config.json: peak RSS %d MiB (bound 300 MiB)", rss>>20)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	var res struct {
		Disclosure struct {
			Configuration json.RawMessage `json:"configuration"`
		} `json:"disclosure"`
	}
	if err := json.Unmarshal(js, &res); err != nil || len(res.Disclosure.Configuration) > 0 {
		t.Errorf("the results keep the target's deep configuration (%d bytes) %v", len(res.Disclosure.Configuration), err)
	}

	// a results file carrying the deep document, given to report and report compare
	var doc map[string]json.RawMessage
	json.Unmarshal(js, &doc)
	doc["notes"] = json.RawMessage(`[` + deep + `]`)
	b, _ := json.Marshal(doc)
	os.WriteFile(filepath.Join(dir, "deep.json"), b, 0o644)
	for _, args := range [][]string{{"report", "deep.json"}, {"report", "compare", "deep.json", "r.json"}} {
		r, rss := runRSS(t, dir, args...)
		t.Logf("%v: exit %d, peak RSS %d MiB", args, r.code, rss>>20)
		if r.code != exitUsage || !strings.Contains(r.stderr, "nested too deep") {
			t.Errorf("%v: exit %d (want %d, the file refused as nested too deep)\n%s", args, r.code, exitUsage, r.stderr)
		}
		if rss > 300<<20 {
			t.Errorf("%v: peak RSS %d MiB (bound 300 MiB)", args, rss>>20)
		}
	}
}
