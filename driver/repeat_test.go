package driver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradebench/tradebench/report"
)

// Three repeats whose first is invalid (every request fails: a broken answer) and the others healthy are not a
// valid measurement: the error says run 1 was invalid, the first repeat records its verdict, and
// a note says so, although the results' own verdict is the last run's (valid or inconclusive).
// Mutant: only the last run's failure kept (errs appended only when i == n): error <nil>.
func TestRepeatKeepsEveryRunsVerdict(t *testing.T) {
	var run atomic.Int64
	run.Store(1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if run.Load() == 1 {
			breakAnswer(w)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	res, err := Drive(context.Background(), Config{URL: srv.URL + "/", Phases: Phases{Users: 2, Duration: time.Second}, Repeat: 3, NoPreflight: true,
		BetweenRepeats: func(ctx context.Context, i int) error { run.Store(int64(i)); return nil }}, HTTP)
	var inv *report.InvalidError
	if !errors.As(err, &inv) || !strings.Contains(err.Error(), "run 1 of 3") {
		t.Fatalf("error %v: want run 1's invalid verdict", err)
	}
	if res == nil || len(res.Repeats) != 3 || res.Repeats[0].Verdict != report.Invalid || res.Repeats[2].Verdict == report.Invalid {
		t.Fatalf("repeats %+v", res)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "run 1 of 3") {
		t.Errorf("notes %q do not say run 1 was invalid", res.Notes)
	}
}
