package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/tradebench/tradebench/report"
)

func TestDriveExitCodes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.json")
	quick := []string{"drive", "--url", srv.URL + "/", "-c", "2", "-d", "1s", "--progress", "off", "--out", out}
	if code := runMain(append(quick, "--min-tps", "1")); code != 0 {
		t.Fatalf("passing run: exit %d", code)
	}
	res, err := report.ReadFile(out)
	if err != nil || res.Total.Pass == 0 || len(res.Thresholds) != 1 || !res.Thresholds[0].Passed {
		t.Fatalf("results file: %+v %v", res, err)
	}
	if code := runMain(append(quick, "--min-tps", "1e9", "--force")); code != 3 { // the same --out again
		t.Errorf("failed threshold: exit %d, want 3", code)
	}
	if res, _ := report.ReadFile(out); len(res.Thresholds) != 1 || res.Thresholds[0].Passed {
		t.Errorf("the results of a failed threshold run are still written: %+v", res.Thresholds)
	}
	for _, bad := range [][]string{
		{"drive", "--url", srv.URL, "-c", "0"},
		{"drive", "--url", srv.URL, "--think", "soon"},
		{"drive", "--url", srv.URL, "--max-error-rate", "2"},
		{"drive", "--target", srv.URL, "--rate", "5", "--users", "3"},
		{"drive", "--url", srv.URL, "--target", srv.URL},
		{"drive", "--scenario", "buysell"},
		{"drive", "--url", srv.URL, "--bogus"},
		{"drive", "--url", srv.URL, "--metrics-listen", "9465"},
		{"drive", "--url", srv.URL, "--dashboard", "127.0.0.1:9466", "--live-linger", "-1s"},
		{"drive", "--url", srv.URL, "--metrics-listen", "127.0.0.1:9465", "--dashboard", "127.0.0.1:9465"},
	} {
		if code := runMain(bad); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	os.Remove(out)
}
