package xmlmarkjob

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/internal/setting"
	"github.com/tradebench/tradebench/report"
	"github.com/tradebench/tradebench/xmlmark"
)

// The configs listing has a line for every built-in, with its users and documents; a name
// prints its INI text, any case, and an unknown one is an error listing the built-ins.
// (Mutant xmlmark-configs-table-first-only: the table stops after the first built-in.)
func TestConfigTable(t *testing.T) {
	table, err := ConfigTable()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if names := xmlmark.BuiltinNames(); len(lines) != len(names) || len(names) < 2 {
		t.Fatalf("%d lines for %d built-ins:\n%s", len(lines), len(names), table)
	}
	if !strings.HasPrefix(lines[0], "DOM1  users 4  dom 100") || !strings.Contains(lines[0], "docs ") {
		t.Errorf("first line %q", lines[0])
	}
	text, err := ConfigText("dom1")
	if err != nil || !strings.Contains(text, "Agents = 4") {
		t.Errorf("ConfigText(dom1) = %q, %v", text, err)
	}
	if _, err := ConfigText("nosuch"); err == nil || !strings.Contains(err.Error(), `"nosuch"`) || !strings.Contains(err.Error(), "SAX1") {
		t.Errorf("ConfigText(nosuch) error %v", err)
	}
}

// Validate names the field of each bad setting: a phase, the Validation percentage an override
// put out of range, a kind Only picks that the mix does not run.
// (Mutant xmlmark-validate-only-off: Validate skips the Only check, so the run starts.)
func TestValidateNamesTheField(t *testing.T) {
	cfg := func(edit func(*Config)) error {
		c, err := xmlmark.LoadConfig("SAX1")
		if err != nil {
			t.Fatal(err)
		}
		j := New(c)
		edit(&j)
		return j.Validate()
	}
	if err := cfg(func(*Config) {}); err != nil {
		t.Fatalf("the built-in SAX1: %v", err)
	}
	for _, tc := range []struct {
		field, want string
		edit        func(*Config)
	}{
		{"Duration", "positive", func(c *Config) { c.Duration = 0 }},
		{"Validation", "Validation = 101", func(c *Config) { c.XML.Validation = 101 }},
		{"Only", "dom usage 0", func(c *Config) { c.Only = xmlmark.KindDOM }},
		{"Only", "unknown transaction kind", func(c *Config) { c.Only = "xsl" }},
	} {
		err := cfg(tc.edit)
		var se *setting.Error
		if !errors.As(err, &se) || se.Field != tc.field || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a setting error of %s saying %q", tc.field, err, tc.field, tc.want)
		}
	}
}

// The summary gives each kind's MB/s in name order and the notes, and a run with failed
// transactions returns an error counting them.
// (Mutant xmlmark-summary-errors-ignored: a run with failures ends without the error.)
func TestWriteSummary(t *testing.T) {
	res := &report.Results{Notes: []string{"a note"}}
	d, err := report.Section(Detail{ParsedMBPerSec: map[string]float64{"sax": 2, "dom": 1.25}})
	if err != nil {
		t.Fatal(err)
	}
	res.Detail = d
	var b bytes.Buffer
	if err := WriteSummary(&b, res); err != nil {
		t.Fatal(err)
	}
	if want := "dom: 1.2 MB/s of documents processed\nsax: 2.0 MB/s of documents processed\nnote: a note\n"; b.String() != want {
		t.Errorf("summary %q, want %q", b.String(), want)
	}
	res.Total.Errors = 3
	if err := WriteSummary(&b, res); err == nil || !strings.Contains(err.Error(), "3 transactions failed") {
		t.Errorf("a run with 3 failed transactions: %v", err)
	}
}
