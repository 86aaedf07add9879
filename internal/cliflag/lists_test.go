package cliflag

import (
	"flag"
	"io"
	"reflect"
	"testing"
)

// TestLists: a repeatable flag keeps each value whole and in order (a header's commas are its
// own); a comma list splits, trims and drops empty items, and adds when given again.
// Mutant (cliflag-comma-untrimmed): Comma keeping the spaces around items.
func TestLists(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var h Strings
	var hosts Comma
	fs.Var(&h, "H", "")
	fs.Var(&hosts, "hosts", "")
	if err := fs.Parse([]string{"-H", "Accept: a, b", "-H", "X: 1", "-hosts", " mon , ,driver.lan", "-hosts", "x"}); err != nil {
		t.Fatal(err)
	}
	if want := (Strings{"Accept: a, b", "X: 1"}); !reflect.DeepEqual(h, want) {
		t.Errorf("repeated: %q, want %q", h, want)
	}
	if want := (Comma{"mon", "driver.lan", "x"}); !reflect.DeepEqual(hosts, want) {
		t.Errorf("comma list: %q, want %q", hosts, want)
	}
}
