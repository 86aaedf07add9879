package pricing

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/tradebench/tradebench/report"
)

const sample = `# the system under test, three years
currency: USD
items:
  - name: 2 x application server
    cost: 12000.10
  - name: database server
    cost: "8500.2"
  - name: software support
    cost: 3
`

func TestParseAndPrice(t *testing.T) {
	p, err := Parse("p.yaml", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if p.Currency != "USD" || len(p.Items) != 3 || p.Items[1].Line != 6 {
		t.Fatalf("%+v", p)
	}
	// 0.1 + 0.2 is not 0.3 in floats: exact cents are
	if got := FormatCents(p.TotalCents()); got != "20503.30" {
		t.Fatalf("total %s, want 20503.30", got)
	}
	r := &report.Results{Total: report.Transaction{TPS: 123.4}}
	pp, err := p.For(r)
	if err != nil {
		t.Fatal(err)
	}
	// 20503.30 / 123.4 = 166.15316… → 166.15
	if pp.Total != "20503.30" || pp.PerTPS != "166.15" || pp.TPS != 123.4 || pp.TPSOf != report.PriceOfSteady || pp.Currency != "USD" {
		t.Fatalf("%+v", pp)
	}
	if len(pp.Items) != 3 || pp.Items[1] != (report.PriceItem{Name: "database server", Cost: "8500.20"}) {
		t.Fatalf("items %+v", pp.Items)
	}
	// with a peak search, the peak is priced
	r.Peak = &report.PeakSearch{PeakTPS: 200}
	pp, _ = p.For(r)
	if pp.TPS != 200 || pp.PerTPS != "102.52" || pp.TPSOf != report.PriceOfPeak { // 102.5165 → 102.52
		t.Fatalf("%+v", pp)
	}
	if _, err := p.For(&report.Results{}); !errors.Is(err, ErrNoThroughput) {
		t.Fatalf("0 TPS priced: %v", err)
	}
}

// Rounding is half away from zero on the exact quotient, and the TPS is the decimal the
// results file shows: 0.1 TPS is one tenth, not 0.1000000000000000055….
func TestPerTPSRounding(t *testing.T) {
	for _, c := range []struct {
		total string
		tps   float64
		want  string
	}{
		{"1.00", 8, "0.13"},   // 0.125 → 0.13
		{"1.00", 16, "0.06"},  // 0.0625 → 0.06
		{"0.01", 0.1, "0.10"}, // exactly 0.1, a float would give 0.09999…
		{"10.00", 3, "3.33"},  // 3.333…
		{"20.00", 3, "6.67"},  // 6.666…
		{"0.00", 5, "0.00"},   // free
		{"100.00", 1e-3, "100000.00"},
		{"92233720368547758.07", 0.5, "184467440737095516.14"}, // beyond int64 cents
	} {
		total, err := ParseCents(c.total)
		if err != nil {
			t.Fatal(err)
		}
		if got := FormatCents(PerTPSCents(total, c.tps)); got != c.want {
			t.Errorf("%s / %g = %s, want %s", c.total, c.tps, got, c.want)
		}
	}
}

func TestParseCents(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "12": 1200, "12.5": 1250, "12.05": 1205, "12.": 1200, "+7.01": 701, "-0": 0, " 3 ": 300} {
		c, err := ParseCents(in)
		if err != nil || c.Cmp(big.NewInt(want)) != 0 {
			t.Errorf("%q: %v %v, want %d", in, c, err, want)
		}
	}
	for _, in := range []string{"", "abc", "1e3", "1,000", "1.234", "-5", ".5", "0x10", "1_000", "NaN", "inf"} {
		if c, err := ParseCents(in); err == nil {
			t.Errorf("%q read as %v", in, c)
		}
	}
}

// Every bad pricing file is refused with an error naming the line.
func TestBadFiles(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"currency: USD\nitems:\n  - name: a\n    cost: -5\n", "p.yaml:4: cost of \"a\": -5 is negative"},
		{"currency: USD\nitems:\n  - name: a\n    cost: ten\n", "p.yaml:4: cost of \"a\": \"ten\" is not a number"},
		{"currency: USD\nitems:\n  - name: a\n    cost: 1.005\n", "p.yaml:4: cost of \"a\": \"1.005\" has more than two decimals"},
		{"currency: USD\nitems: []\n", "p.yaml:2: no items"},
		{"currency: USD\n", "p.yaml:1: no items"},
		{"currency: USD\nitems:\n  - name: a\n", "p.yaml:3: item \"a\" has no cost"},
		{"currency: USD\nitems:\n  - cost: 5\n", "p.yaml:3: an item has no name"},
		{"currency: USD\nitems:\n  - name: a\n    cost: 5\n    price: 6\n", "p.yaml:5: unknown key \"price\""},
		{"items:\n  - name: a\n    cost: 5\n", "p.yaml:1: no currency"},
		{"currency: USD\nitems:\n  - name: a\n    cost: [5]\n", "p.yaml:4: cost of \"a\" must be a number"},
		{"", "p.yaml: empty"},
		{"currency: [\n", "p.yaml: not YAML"},
	} {
		_, err := Parse("p.yaml", []byte(c.file))
		var pe *Error
		if !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q…", c.file, err, c.want)
		}
	}
}
