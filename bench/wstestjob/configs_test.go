package wstestjob

import (
	"strings"
	"testing"
)

// The configs listing names every built-in under how to run one, and the header of a resolved
// run says its mix, encoding, methodology and phases.
// (Mutant wstest-configs-table-empty: the listing names no built-in.)
func TestConfigTableAndHeader(t *testing.T) {
	table := ConfigTable()
	if !strings.HasPrefix(table, "built-in WSTest configurations (run with: tradebench wstest drive --config NAME --target URL):\n") {
		t.Errorf("listing starts %q", table)
	}
	for _, n := range Builtins() {
		if !strings.Contains(table, "\n  "+n+"\n") {
			t.Errorf("listing lacks %s:\n%s", n, table)
		}
	}
	var s Settings
	if _, err := LoadINI("sun-echolist20", &s); err != nil {
		t.Fatal(err)
	}
	c, err := Resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	if h := c.Header(); !strings.HasPrefix(h, "wstest EchoList=100 over soap, sun methodology: 8 users, think 0s, keep-alive true, list 20") {
		t.Errorf("header %q", h)
	}
}
