package verify

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
)

// TestOutputs: a file that cannot be written is refused before anything runs, naming the field
// (the command's flag); a verification that ran is summarised and written — JSON, the HTML
// report beside it, JUnit — and its verdict returned; an interrupted one is summarised but
// neither written nor judged.
// Mutant: verify-outputs-interrupted-written (an interrupted verification is written as if it
// were a verdict, and its verdict returned) → "interrupted: ...".
func TestOutputs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		o     Outputs
		field string
	}{
		{Outputs{JSON: dir}, "JSON"},
		{Outputs{JUnit: filepath.Join(dir, "missing", "j.xml")}, "JUnit"},
	} {
		var se *setting.Error
		if err := tc.o.Check(); !errors.As(err, &se) || se.Field != tc.field {
			t.Errorf("%+v: %v; want an error of %s", tc.o, err, tc.field)
		}
	}
	res := report.NewVerification("http://127.0.0.1:1")
	res.Record(report.Check{ID: "pages.login", Level: 1, Rule: "a user logs in"}, time.Now(), nil)
	if err := res.Finish(context.Background(), Levels); err != nil {
		t.Fatal(err)
	}
	o := Outputs{JSON: filepath.Join(dir, "v.json"), JUnit: filepath.Join(dir, "v.xml")}
	var stdout bytes.Buffer
	interrupted := errors.New("verification interrupted")
	if err := Finish(o, res, interrupted, &stdout); err != interrupted || !strings.Contains(stdout.String(), "pages.login") {
		t.Fatalf("interrupted: %v; summary %q", err, stdout.String())
	}
	if _, err := os.Stat(o.JSON); err == nil {
		t.Fatal("an interrupted verification wrote its JSON")
	}
	err := Finish(o, res, nil, &stdout)
	var nc *report.NotConformant
	if res.Conformant != (err == nil) || (err != nil && !errors.As(err, &nc)) {
		t.Fatalf("verdict: conformant %v, error %v", res.Conformant, err)
	}
	for _, f := range []string{o.JSON, filepath.Join(dir, "v.html"), o.JUnit} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}
