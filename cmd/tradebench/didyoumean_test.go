package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDidYouMeanForEnumeratedValues: a misspelt scenario name, access mode, order mode,
// redirect policy, scenario parameter or report format is refused (exit 2) with the value meant
// — as a misspelt flag or command already was — before any load. Mutant: suggest-no-hint
// (DidYouMean returning "") fails every case.
func TestDidYouMeanForEnumeratedValues(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a refused command sent %s %s", r.Method, r.URL)
	}))
	defer srv.Close()
	results := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(results, []byte(`{"schema_version":2,"workload":"http","settings":{"model":"closed"},"total":{"name":"total"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"drive", "--target", srv.URL, "--scenario", "buysel"}, "did you mean buysell?"},
		{[]string{"drive", "--target", srv.URL, "--scenario", "stocktrade"}, "did you mean stocktrader?"},
		{[]string{"drive", "--target", srv.URL, "--scenario", "buysell", "--set", "quote=10"}, "did you mean quotes?"},
		{[]string{"drive", "--url", srv.URL, "--redirects", "same_origin"}, "did you mean same-origin?"},
		{[]string{"run", "--access", "gprc"}, "did you mean grpc?"},
		{[]string{"run", "--access", "REST"}, "did you mean rest?"},
		{[]string{"run", "--orders", "async-durabel"}, "did you mean async-durable?"},
		{[]string{"report", results, "--format", "jnuit"}, "did you mean junit?"},
	} {
		args := tc.args
		if args[0] != "report" {
			args = append(args, "-d", "1s", "--progress", "off")
		}
		code, _, stderr := capture(t, args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want 2 and %q: %s", tc.args, code, tc.want, stderr)
		}
	}
}
